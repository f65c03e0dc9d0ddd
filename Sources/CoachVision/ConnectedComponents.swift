import CoachData

/// The 8-connected components (blobs) of a binary mask, with each blob's area, centroid,
/// bounding box and enclosing circle.
///
/// Labelling is the classic two-pass algorithm: a raster scan gives each foreground pixel the
/// smallest provisional label among its already-visited neighbours (west, north-west, north,
/// north-east) and records equivalences in a union-find forest; a second scan replaces each
/// provisional label by its final one. Final labels are 1, 2, 3… in the raster order of each
/// blob's first (top-most, then left-most) pixel; 0 is background.
///
/// Coordinates are continuous pixel coordinates with the origin at the mask's top-left corner:
/// pixel `(x, y)` covers `[x, x+1) × [y, y+1)` and its centre is `(x + 0.5, y + 0.5)` (as
/// `ImagePoint` and `BoundingBox`).
public struct ConnectedComponents: Equatable, Sendable {
    /// One connected component of the mask.
    public struct Blob: Equatable, Sendable {
        /// The blob's label in `labels` (1-based).
        public var label: Int
        /// The number of pixels.
        public var area: Int
        /// The horizontal centroid: the mean of the pixel centres' `x`.
        public var centroidX: Double
        /// The vertical centroid: the mean of the pixel centres' `y` (from the top).
        public var centroidY: Double
        /// The smallest box holding every pixel (`maxX` is the right-most column + 1).
        public var boundingBox: BoundingBox
        /// The centre of the enclosing circle (see `enclosingRadius`), horizontal.
        public var enclosingCenterX: Double
        /// The centre of the enclosing circle, vertical (from the top).
        public var enclosingCenterY: Double
        /// The radius of the enclosing circle: the exact minimum enclosing circle of the pixel
        /// centres, enlarged by half a pixel. One pixel gives 0.5; a 1 × n run gives n / 2; a
        /// 3 × 3 square gives √2 + 0.5. It is within 0.21 px of the smallest circle holding the
        /// pixel squares themselves (between that circle and it minus √2/2 − 1/2).
        public var enclosingRadius: Double
    }

    /// The mask's width.
    public let width: Int
    /// The mask's height.
    public let height: Int
    /// `height × width` labels, rows top to bottom: 0 for background, else the blob's label.
    public let labels: [Int32]
    /// The blobs, in label order (`blobs[i].label == i + 1`).
    public let blobs: [Blob]

    /// Labels the `true` pixels of `mask` (`height × width` values, rows top to bottom);
    /// nil when `mask.count != width × height` or a size is negative.
    public init?(mask: [Bool], width: Int, height: Int) {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        guard width >= 0, height >= 0, !overflow, mask.count == count else { return nil }
        self.width = width
        self.height = height
        var labels = [Int32](repeating: 0, count: width * height)
        var parents: [Int32] = [0]
        mask.withUnsafeBufferPointer { source in
            labels.withUnsafeMutableBufferPointer { target in
                ConnectedComponents.firstPass(source, target, width: width, height: height, parents: &parents)
            }
        }
        // Resolve equivalences and renumber roots in order of first appearance.
        var finalLabel = [Int32](repeating: 0, count: parents.count)
        var blobCount: Int32 = 0
        labels.withUnsafeMutableBufferPointer { target in
            for index in 0..<target.count where target[index] != 0 {
                let root = Int(ConnectedComponents.find(&parents, target[index]))
                if finalLabel[root] == 0 {
                    blobCount += 1
                    finalLabel[root] = blobCount
                }
                target[index] = finalLabel[root]
            }
        }
        self.labels = labels
        self.blobs = ConnectedComponents.measure(labels: labels, width: width, height: height, count: Int(blobCount))
    }

    /// Labels the pixels of `image` brighter than `threshold` (values `> threshold` are foreground).
    public init(image: GrayImage, threshold: Float) {
        let mask = image.pixels.map { $0 > threshold }
        // The sizes come from a valid image, so labelling cannot fail; the fallback is unreachable.
        self = ConnectedComponents(mask: mask, width: image.width, height: image.height)
            ?? ConnectedComponents(emptyWidth: image.width, height: image.height)
    }

    private init(emptyWidth width: Int, height: Int) {
        self.width = width
        self.height = height
        self.labels = [Int32](repeating: 0, count: max(0, width * height))
        self.blobs = []
    }

    // MARK: - Labelling

    private static func firstPass(_ mask: UnsafeBufferPointer<Bool>, _ labels: UnsafeMutableBufferPointer<Int32>,
                                  width: Int, height: Int, parents: inout [Int32]) {
        for y in 0..<height {
            let row = y * width
            for x in 0..<width where mask[row + x] {
                var label: Int32 = 0
                // Neighbours already visited: W, NW, N, NE.
                if x > 0, labels[row + x - 1] != 0 { label = labels[row + x - 1] }
                if y > 0 {
                    let above = row - width
                    for dx in -1...1 {
                        let nx = x + dx
                        guard nx >= 0, nx < width else { continue }
                        let neighbour = labels[above + nx]
                        guard neighbour != 0 else { continue }
                        if label == 0 {
                            label = neighbour
                        } else if neighbour != label {
                            union(&parents, label, neighbour)
                        }
                    }
                }
                if label == 0 {
                    label = Int32(parents.count)
                    parents.append(label)
                }
                labels[row + x] = label
            }
        }
    }

    private static func find(_ parents: inout [Int32], _ label: Int32) -> Int32 {
        var root = label
        while parents[Int(root)] != root { root = parents[Int(root)] }
        var node = label
        while parents[Int(node)] != root {
            let next = parents[Int(node)]
            parents[Int(node)] = root
            node = next
        }
        return root
    }

    private static func union(_ parents: inout [Int32], _ first: Int32, _ second: Int32) {
        let a = find(&parents, first)
        let b = find(&parents, second)
        if a < b { parents[Int(b)] = a } else if b < a { parents[Int(a)] = b }
    }

    // MARK: - Measurements

    private static func measure(labels: [Int32], width: Int, height: Int, count: Int) -> [Blob] {
        guard count > 0 else { return [] }
        var area = [Int](repeating: 0, count: count)
        var sumX = [Double](repeating: 0, count: count)
        var sumY = [Double](repeating: 0, count: count)
        var minX = [Int](repeating: Int.max, count: count)
        var minY = [Int](repeating: Int.max, count: count)
        var maxX = [Int](repeating: -1, count: count)
        var maxY = [Int](repeating: -1, count: count)
        // Each blob's left-most and right-most pixel in every row it touches: every pixel of the
        // row lies between them, so a circle holding them holds the whole blob.
        var extremes = [[SIMD2<Double>]](repeating: [], count: count)
        var rowLeft = [Int](repeating: 0, count: count)
        var rowRight = [Int](repeating: 0, count: count)
        var rowSeen = [Int](repeating: -1, count: count)
        var touched: [Int] = []

        labels.withUnsafeBufferPointer { source in
            for y in 0..<height {
                touched.removeAll(keepingCapacity: true)
                let row = y * width
                for x in 0..<width {
                    let label = Int(source[row + x])
                    guard label != 0 else { continue }
                    let index = label - 1
                    area[index] += 1
                    sumX[index] += Double(x)
                    sumY[index] += Double(y)
                    if x < minX[index] { minX[index] = x }
                    if x > maxX[index] { maxX[index] = x }
                    if y < minY[index] { minY[index] = y }
                    if y > maxY[index] { maxY[index] = y }
                    if rowSeen[index] != y {
                        rowSeen[index] = y
                        rowLeft[index] = x
                        touched.append(index)
                    }
                    rowRight[index] = x
                }
                for index in touched {
                    let centreY = Double(y) + 0.5
                    extremes[index].append(SIMD2(Double(rowLeft[index]) + 0.5, centreY))
                    if rowRight[index] != rowLeft[index] {
                        extremes[index].append(SIMD2(Double(rowRight[index]) + 0.5, centreY))
                    }
                }
            }
        }

        var blobs: [Blob] = []
        blobs.reserveCapacity(count)
        for index in 0..<count {
            let circle = ConnectedComponents.minimumEnclosingCircle(of: extremes[index])
            blobs.append(Blob(
                label: index + 1,
                area: area[index],
                centroidX: sumX[index] / Double(area[index]) + 0.5,
                centroidY: sumY[index] / Double(area[index]) + 0.5,
                boundingBox: BoundingBox(minX: Double(minX[index]), minY: Double(minY[index]),
                                         maxX: Double(maxX[index] + 1), maxY: Double(maxY[index] + 1)),
                enclosingCenterX: circle.center.x,
                enclosingCenterY: circle.center.y,
                enclosingRadius: circle.radius + 0.5))
        }
        return blobs
    }
}
