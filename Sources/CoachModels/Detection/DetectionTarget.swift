import CoachData
import Foundation

/// The ground truth of one training view: boxes in input-tensor pixels and their class indices.
public struct DetectionTarget: Equatable, Sendable {
    /// Boxes in input pixels (letterboxed image), origin top-left.
    public var boxes: [BoundingBox]
    /// The class index of each box.
    public var classIndices: [Int]

    /// A target of `boxes` with `classIndices` (same count).
    public init(boxes: [BoundingBox], classIndices: [Int]) {
        precondition(boxes.count == classIndices.count, "one class index per box")
        self.boxes = boxes
        self.classIndices = classIndices
    }
}

/// Which prediction slots are responsible for which ground-truth boxes.
///
/// - **anchor-free** (one level): centre sampling (FCOS): every cell whose centre lies
///   within `centerRadius` strides of a box's centre (in x and in y) and inside the box is
///   a positive for it; the cell holding the centre always is. A cell claimed by several
///   boxes takes the smallest (so objects on top of larger ones keep their cells).
/// - **anchors** (YOLOv2, over one or more levels): each box goes to the anchor whose shape
///   overlaps it best (IoU of the two sizes, centres aligned), in the cell of that anchor's
///   level that holds the box's centre. Boxes choose in order of increasing area; when that
///   slot is already taken (two objects centred in one cell, e.g. a pile of bags) the box
///   takes the next best-shaped anchor whose slot is free, on any level, and is left out
///   only when every candidate slot is taken.
public enum SlotAssignment {
    /// Radius of centre sampling, in strides (FCOS's default).
    public static let centerRadius: Double = 1.5

    /// For each level, for each slot of the image (row-major cells, then slots), the index
    /// of its box, or −1.
    public static func assign(_ target: DetectionTarget, grids: [DetectionGrid]) -> [[Int]] {
        guard let first = grids.first else { return [] }
        if !first.usesAnchors { return [assignAnchorFree(target, grid: first)] }
        var owners = grids.map { [Int](repeating: -1, count: $0.slotCount) }
        let order = target.boxes.indices.sorted { a, b in
            target.boxes[a].area != target.boxes[b].area ? target.boxes[a].area < target.boxes[b].area : a < b
        }
        for index in order {
            let box = target.boxes[index]
            guard box.width > 0 && box.height > 0 else { continue }
            var candidates: [(level: Int, anchor: Int, overlap: Double)] = []
            for (level, grid) in grids.enumerated() {
                for (a, anchor) in grid.anchors.enumerated() {
                    candidates.append((level, a, shapeIoU(box.width, box.height, anchor.width, anchor.height)))
                }
            }
            candidates.sort { $0.overlap != $1.overlap ? $0.overlap > $1.overlap : ($0.level, $0.anchor) < ($1.level, $1.anchor) }
            for candidate in candidates {
                let grid = grids[candidate.level], s = Double(grid.stride)
                let column = min(max(Int(box.centerX / s), 0), grid.gridWidth - 1)
                let row = min(max(Int(box.centerY / s), 0), grid.gridHeight - 1)
                let slot = (row * grid.gridWidth + column) * grid.slotsPerCell + candidate.anchor
                if owners[candidate.level][slot] < 0 {
                    owners[candidate.level][slot] = index
                    break
                }
            }
        }
        return owners
    }

    /// Centre sampling on one anchor-free grid (see the type's description).
    static func assignAnchorFree(_ target: DetectionTarget, grid c: DetectionGrid) -> [Int] {
        var owner = [Int](repeating: -1, count: c.slotCount)
        let s = Double(c.stride)
        func claim(_ slot: Int, _ box: Int) {
            let current = owner[slot]
            if current < 0 || target.boxes[box].area < target.boxes[current].area { owner[slot] = box }
        }
        for (index, box) in target.boxes.enumerated() where box.width > 0 && box.height > 0 {
            let centerColumn = min(max(Int(box.centerX / s), 0), c.gridWidth - 1)
            let centerRow = min(max(Int(box.centerY / s), 0), c.gridHeight - 1)
            let radius = centerRadius * s
            let firstColumn = max(0, Int(((box.centerX - radius) / s - 0.5).rounded(.up)))
            let lastColumn = min(c.gridWidth - 1, Int(((box.centerX + radius) / s - 0.5).rounded(.down)))
            let firstRow = max(0, Int(((box.centerY - radius) / s - 0.5).rounded(.up)))
            let lastRow = min(c.gridHeight - 1, Int(((box.centerY + radius) / s - 0.5).rounded(.down)))
            if firstRow <= lastRow && firstColumn <= lastColumn {
                for row in firstRow...lastRow {
                    for column in firstColumn...lastColumn {
                        let x = (Double(column) + 0.5) * s, y = (Double(row) + 0.5) * s
                        guard x > box.minX && x < box.maxX && y > box.minY && y < box.maxY else { continue }
                        claim(row * c.gridWidth + column, index)
                    }
                }
            }
            claim(centerRow * c.gridWidth + centerColumn, index)
        }
        return owner
    }

    /// IoU of two boxes of the given sizes sharing a centre.
    public static func shapeIoU(_ w1: Double, _ h1: Double, _ w2: Double, _ h2: Double) -> Double {
        let intersection = min(w1, w2) * min(h1, h2)
        return intersection / (w1 * h1 + w2 * h2 - intersection)
    }
}
