import CoachRandom

extension PoseDatasetSplit {
    /// Seeded stratified k-fold cross-validation: within each class (in sorted label order) the
    /// items are shuffled with `generator` and dealt round-robin into `foldCount` folds; split `k`
    /// holds out fold `k` and trains on the rest. Every item is held out exactly once.
    public static func stratifiedFolds(labels: [String], foldCount: Int, generator: inout SeededGenerator) -> [PoseDatasetSplit] {
        let k = max(foldCount, 2)
        var folds = [[Int]](repeating: [], count: k)
        var byClass: [String: [Int]] = [:]
        for (index, label) in labels.enumerated() { byClass[label, default: []].append(index) }
        var next = 0
        for (_, indices) in byClass.sorted(by: { $0.key < $1.key }) {
            var shuffled = indices
            generator.shuffle(&shuffled)
            for index in shuffled {
                folds[next % k].append(index)
                next += 1
            }
        }
        return (0..<k).map { fold in
            let test = folds[fold].sorted()
            let held = Set(test)
            return PoseDatasetSplit(trainIndices: labels.indices.filter { !held.contains($0) }, testIndices: test)
        }
    }
}
