import Foundation

/// Generalized IoU (Rezatofighi et al., 2019) of two boxes given by corners, with its
/// gradient with respect to the first box: `GIoU = IoU − (C − U)/C`, where U is the
/// union's area and C the area of the smallest box enclosing both. It lies in (−1, 1]
/// and, unlike IoU, still says which way to move when the boxes do not overlap.
public enum GeneralizedIoU {
    /// Corners `(x1, y1, x2, y2)` with `x1 < x2`, `y1 < y2`.
    public typealias Corners = (x1: Float, y1: Float, x2: Float, y2: Float)

    /// GIoU of `box` against `target`, and ∂GIoU/∂(x1, y1, x2, y2) of `box`.
    ///
    /// Sub-gradients at ties (`box.x1 == target.x1`, …) take the branch where `box`
    /// is the one inside.
    public static func valueAndGradient(_ box: Corners, _ target: Corners) -> (value: Float, gradient: Corners) {
        let boxWidth = box.x2 - box.x1, boxHeight = box.y2 - box.y1
        let targetArea = (target.x2 - target.x1) * (target.y2 - target.y1)
        let boxArea = boxWidth * boxHeight
        // Intersection.
        let ix1 = max(box.x1, target.x1), ix2 = min(box.x2, target.x2)
        let iy1 = max(box.y1, target.y1), iy2 = min(box.y2, target.y2)
        let iw = max(ix2 - ix1, 0), ih = max(iy2 - iy1, 0)
        let intersection = iw * ih
        let union = max(boxArea + targetArea - intersection, 1e-9)
        // Enclosing box.
        let cx1 = min(box.x1, target.x1), cx2 = max(box.x2, target.x2)
        let cy1 = min(box.y1, target.y1), cy2 = max(box.y2, target.y2)
        let cw = cx2 - cx1, ch = cy2 - cy1
        let enclosing = max(cw * ch, 1e-9)
        let value = intersection / union - (enclosing - union) / enclosing

        // GIoU = I/U − 1 + U/C with U = A_box + A_target − I.
        let dUnion = -intersection / (union * union) + 1 / enclosing
        let dIntersection = 1 / union - dUnion
        let dBoxArea = dUnion
        let dEnclosing = -union / (enclosing * enclosing)

        var g: Corners = (0, 0, 0, 0)
        // Box area = (x2 − x1)(y2 − y1).
        g.x1 -= dBoxArea * boxHeight
        g.x2 += dBoxArea * boxHeight
        g.y1 -= dBoxArea * boxWidth
        g.y2 += dBoxArea * boxWidth
        // Intersection = iw · ih, iw = min(x2) − max(x1) when positive.
        if iw > 0 && ih > 0 {
            if box.x1 >= target.x1 { g.x1 -= dIntersection * ih }
            if box.x2 <= target.x2 { g.x2 += dIntersection * ih }
            if box.y1 >= target.y1 { g.y1 -= dIntersection * iw }
            if box.y2 <= target.y2 { g.y2 += dIntersection * iw }
        }
        // Enclosing = cw · ch, cw = max(x2) − min(x1).
        if box.x1 < target.x1 { g.x1 -= dEnclosing * ch }
        if box.x2 > target.x2 { g.x2 += dEnclosing * ch }
        if box.y1 < target.y1 { g.y1 -= dEnclosing * cw }
        if box.y2 > target.y2 { g.y2 += dEnclosing * cw }
        return (value, g)
    }
}
