import CoachRandom

/// A train/test partition of a labeled collection, as sorted indices into it.
public struct PoseDatasetSplit: Hashable, Sendable {
    /// Indices of the training items, increasing.
    public var trainIndices: [Int]
    /// Indices of the held-out (test or validation) items, increasing.
    public var testIndices: [Int]

    /// A split with the given indices.
    public init(trainIndices: [Int], testIndices: [Int]) {
        self.trainIndices = trainIndices
        self.testIndices = testIndices
    }

    /// How many of a class's `classSize` items are held out: ⌈classSize · testFraction⌉, but never all
    /// of them (a class of one keeps its item for training); `testFraction` is clamped to 0…1.
    public static func testCount(classSize: Int, testFraction: Double) -> Int {
        guard classSize > 1, testFraction > 0 else { return 0 }
        let fraction = min(testFraction, 1)
        let count = Int((Double(classSize) * fraction - 1e-9).rounded(.up))
        return min(max(count, 0), classSize - 1)
    }

    /// A seeded stratified split: within each class (in sorted label order) the items are shuffled
    /// with `generator` and the first `testCount(classSize:testFraction:)` are held out.
    public static func stratified(labels: [String], testFraction: Double, generator: inout SeededGenerator) -> PoseDatasetSplit {
        var train: [Int] = [], test: [Int] = []
        for (_, indices) in indicesByClass(labels) {
            var shuffled = indices
            generator.shuffle(&shuffled)
            let count = testCount(classSize: indices.count, testFraction: testFraction)
            test += shuffled.prefix(count)
            train += shuffled.dropFirst(count)
        }
        return PoseDatasetSplit(trainIndices: train.sorted(), testIndices: test.sorted())
    }

    /// A block split: the last `testCount(classSize:testFraction:)` items of each class, in the
    /// collection's (file) order, are held out — default the last 25%. No randomness, so nearby
    /// frames of one recording do not leak between training and test.
    public static func block(labels: [String], testFraction: Double = 0.25) -> PoseDatasetSplit {
        var train: [Int] = [], test: [Int] = []
        for (_, indices) in indicesByClass(labels) {
            let count = testCount(classSize: indices.count, testFraction: testFraction)
            train += indices.dropLast(count)
            test += indices.suffix(count)
        }
        return PoseDatasetSplit(trainIndices: train.sorted(), testIndices: test.sorted())
    }

    /// Each class's item indices in collection order, classes in sorted order.
    private static func indicesByClass(_ labels: [String]) -> [(String, [Int])] {
        var byClass: [String: [Int]] = [:]
        for (index, label) in labels.enumerated() { byClass[label, default: []].append(index) }
        return byClass.sorted { $0.key < $1.key }
    }
}
