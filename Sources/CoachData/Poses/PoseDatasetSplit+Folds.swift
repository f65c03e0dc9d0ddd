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

extension PoseDatasetSplit {
    /// A seeded stratified split that keeps each group (the clip, video or recording an item was
    /// cut from) whole on one side, so held-out items show the model nothing of a recording it
    /// trained on — as a user's new data will arrive. Each group is stratified by its rarest
    /// label (fewest items overall, ties by name): a throw clip's background segments follow its
    /// throw. The groups are then split as `stratified(labels:testFraction:generator:)` splits
    /// items, and a class left with no training item gets a held-out group of it back. When every
    /// group holds one item this is exactly `stratified` on the items.
    public static func stratified(labels: [String], groups: [Int], testFraction: Double,
                                  generator: inout SeededGenerator) -> PoseDatasetSplit {
        precondition(labels.count == groups.count, "one group per item")
        var members: [Int: [Int]] = [:], order: [Int] = []
        for (index, group) in groups.enumerated() {
            if members[group] == nil { order.append(group) }
            members[group, default: []].append(index)
        }
        if order.count == labels.count {
            return stratified(labels: labels, testFraction: testFraction, generator: &generator)
        }
        let counts = PoseClasses.counts(of: labels)
        let strata = order.map { group in
            members[group]!.map { labels[$0] }.min { (counts[$0]!, $0) < (counts[$1]!, $1) }!
        }
        let groupSplit = stratified(labels: strata, testFraction: testFraction, generator: &generator)
        var heldGroups = groupSplit.testIndices
        var trainingCounts = PoseClasses.counts(of: groupSplit.trainIndices.flatMap { members[order[$0]]!.map { labels[$0] } })
        for label in counts.keys.sorted() where trainingCounts[label, default: 0] == 0 {
            guard let position = heldGroups.lastIndex(where: { members[order[$0]]!.contains { labels[$0] == label } })
            else { continue }
            for item in members[order[heldGroups.remove(at: position)]]! { trainingCounts[labels[item], default: 0] += 1 }
        }
        let held = Set(heldGroups.flatMap { members[order[$0]]! })
        return PoseDatasetSplit(trainIndices: labels.indices.filter { !held.contains($0) }, testIndices: held.sorted())
    }
}
