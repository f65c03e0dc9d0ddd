import CoachRandom

extension PoseDatasetSplit {
    /// Items told apart by how they start, for data that does not record who is who: 2-means over
    /// `starts` (one vector per item, as `PoseDataset.startingPoses` gives), the smaller cluster
    /// held out. Recordings whose rest pose forms a cluster of its own are most likely another
    /// person's or another session's, so training on the rest and testing on them asks what a
    /// user's new recordings will (in the UEA NATOPS training clips, 36 of the 180 start with the
    /// right hand about 0.4 lower and 0.45 off in depth, five to seven of each class).
    ///
    /// Lloyd's iterations from `restarts` seeded pairs of distinct items; the partition with the
    /// lowest within-cluster sum of squares is kept (the first on a tie). Nil when there are fewer
    /// than two distinct vectors or they differ in length.
    public static func startingPoseGroups(_ starts: [[Float]], restarts: Int = 10,
                                          generator: inout SeededGenerator) -> PoseDatasetSplit? {
        guard let width = starts.first?.count, starts.allSatisfy({ $0.count == width }),
              Set(starts).count >= 2 else { return nil }
        let n = starts.count
        func squaredDistance(_ a: [Float], _ b: [Double]) -> Double {
            var sum = 0.0
            for i in 0..<width { let d = Double(a[i]) - b[i]; sum += d * d }
            return sum
        }
        var best: (cost: Double, assignment: [Int])?
        for _ in 0..<max(1, restarts) {
            // Two distinct items as the first centres.
            let first = generator.nextInt(below: n)
            var second = generator.nextInt(below: n)
            while starts[second] == starts[first] { second = generator.nextInt(below: n) }
            var centres = [starts[first].map(Double.init), starts[second].map(Double.init)]
            var assignment = [Int](repeating: -1, count: n)
            for _ in 0..<100 {
                let next = starts.map { squaredDistance($0, centres[1]) < squaredDistance($0, centres[0]) ? 1 : 0 }
                if next == assignment { break }
                assignment = next
                for cluster in 0..<2 {
                    let members = (0..<n).filter { assignment[$0] == cluster }
                    guard !members.isEmpty else { continue }
                    centres[cluster] = (0..<width).map { i in members.reduce(0.0) { $0 + Double(starts[$1][i]) } / Double(members.count) }
                }
            }
            let cost = (0..<n).reduce(0.0) { $0 + squaredDistance(starts[$1], centres[assignment[$1]]) }
            if best == nil || cost < best!.cost { best = (cost, assignment) }
        }
        guard let assignment = best?.assignment else { return nil }
        let ones = assignment.filter { $0 == 1 }.count
        let held = ones * 2 <= n ? 1 : 0
        return PoseDatasetSplit(trainIndices: (0..<n).filter { assignment[$0] != held },
                                testIndices: (0..<n).filter { assignment[$0] == held })
    }
}

extension PoseDataset {
    /// Each example's first frame as one vector (x, y and, with depth, z of every joint in joint
    /// order; an undetected joint's values are 0), for `PoseDatasetSplit.startingPoseGroups`.
    public var startingPoses: [[Float]] {
        examples.map { example in
            let keypoints = example.sequence.frames.first?.keypoints ?? []
            return (0..<jointSet.count).flatMap { joint -> [Float] in
                let keypoint = joint < keypoints.count ? keypoints[joint] : nil
                let values = [keypoint?.x ?? 0, keypoint?.y ?? 0]
                return hasDepth ? values + [keypoint?.z ?? 0] : values
            }
        }
    }

    /// The examples whose first frames form the smaller of two clusters held out, the rest to
    /// train (`PoseDatasetSplit.startingPoseGroups`, seeded by `seed`). Nil when every example
    /// starts alike.
    public func startingPoseSplit(seed: UInt64 = 0) -> PoseDatasetSplit? {
        var generator = SeededGenerator(seed: seed)
        return PoseDatasetSplit.startingPoseGroups(startingPoses, generator: &generator)
    }
}
