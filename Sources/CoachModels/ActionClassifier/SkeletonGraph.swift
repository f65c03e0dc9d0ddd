import CoachData
import CoachTensor

/// The joint graph a spatial-temporal graph network convolves over.
///
/// `body18` and `hand21` have their skeletons built in (bones between joints, centred on the
/// neck and the wrist); any other joint set gets a fully connected graph, which the network's
/// learned adjacency then shapes. The adjacency is split into partitions as ST-GCN's "spatial
/// configuration" does: each joint itself, its neighbours nearer the centre, and those farther
/// from it; a fully connected graph has two partitions: each joint itself and all the others.
public struct SkeletonGraph: Hashable, Sendable {
    /// A bone between two joints (indices in joint-set order).
    public struct Edge: Hashable, Sendable {
        /// One end.
        public var first: Int
        /// The other end.
        public var second: Int

        /// A bone between joints `first` and `second`.
        public init(_ first: Int, _ second: Int) {
            self.first = first
            self.second = second
        }
    }

    /// The number of joints (J).
    public let jointCount: Int
    /// The bones; empty for a fully connected graph.
    public let edges: [Edge]
    /// The centre joint the partitions are measured from (neck, wrist); nil when fully connected.
    public let centre: Int?

    /// A skeleton of `jointCount` joints with `edges`, centred on `centre`.
    public init(jointCount: Int, edges: [Edge], centre: Int) {
        self.jointCount = jointCount
        self.edges = edges
        self.centre = centre
    }

    /// The fully connected graph of `jointCount` joints.
    public init(fullyConnectedJointCount jointCount: Int) {
        self.jointCount = jointCount
        self.edges = []
        self.centre = nil
    }

    /// The graph for `jointSet`: the built-in skeleton of `body18` or `hand21` (`JointSet.bones`),
    /// otherwise fully connected.
    public init(jointSet: JointSet) {
        if let centre = jointSet.skeletonCentre {
            self.init(jointCount: jointSet.count, edges: jointSet.bones.map { Edge($0.0, $0.1) }, centre: centre)
        } else {
            self.init(fullyConnectedJointCount: jointSet.count)
        }
    }

    /// Whether the graph is fully connected (no built-in skeleton).
    public var isFullyConnected: Bool { centre == nil }

    /// The number of adjacency partitions P (3 for a skeleton, 2 fully connected, 1 for one joint).
    public var partitionCount: Int { isFullyConnected ? (jointCount > 1 ? 2 : 1) : 3 }

    /// Hops from the centre joint to each joint (`Int.max` when unreachable).
    public var hopsFromCentre: [Int] {
        guard let centre else { return [Int](repeating: 0, count: jointCount) }
        var neighbours = [[Int]](repeating: [], count: jointCount)
        for edge in edges {
            neighbours[edge.first].append(edge.second)
            neighbours[edge.second].append(edge.first)
        }
        var hops = [Int](repeating: Int.max, count: jointCount)
        hops[centre] = 0
        var queue = [centre], head = 0
        while head < queue.count {
            let joint = queue[head]
            head += 1
            for next in neighbours[joint] where hops[next] == Int.max {
                hops[next] = hops[joint] + 1
                queue.append(next)
            }
        }
        return hops
    }

    /// The normalised adjacency partitions, [P, J, J]: entry [p, i, j] weighs joint j's features
    /// in joint i's output for partition p. Each row is divided by joint i's degree (itself
    /// included), so a layer averages over neighbours as ST-GCN's normalised adjacency does.
    public func partitions() -> Tensor {
        let j = jointCount, p = partitionCount
        var values = [Float](repeating: 0, count: p * j * j)
        if isFullyConnected {
            for i in 0..<j { values[i * j + i] = 1 }
            if p > 1 {
                let weight = 1 / Float(j - 1)
                for i in 0..<j { for k in 0..<j where k != i { values[j * j + i * j + k] = weight } }
            }
            return Tensor(shape: [p, j, j], scalars: values)
        }
        var adjacent = [[Bool]](repeating: [Bool](repeating: false, count: j), count: j)
        for i in 0..<j { adjacent[i][i] = true }
        for edge in edges {
            adjacent[edge.first][edge.second] = true
            adjacent[edge.second][edge.first] = true
        }
        let hops = hopsFromCentre
        for i in 0..<j {
            let degree = Float(adjacent[i].filter { $0 }.count)
            for k in 0..<j where adjacent[i][k] {
                // Partition 0: as near the centre as i (i itself); 1: nearer; 2: farther.
                let partition = hops[k] == hops[i] ? 0 : (hops[k] < hops[i] ? 1 : 2)
                values[partition * j * j + i * j + k] = 1 / degree
            }
        }
        return Tensor(shape: [p, j, j], scalars: values)
    }
}
