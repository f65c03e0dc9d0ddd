/// A plane-to-plane perspective map (a 3×3 homography), e.g. from a board's four corners in an
/// image to the board's own rectangle in metres, so that shapes on the board (its round hole) can
/// be measured without the camera's foreshortening.
public struct Homography: Equatable, Sendable {
    /// The row-major 3×3 matrix, normalised so its last entry is 1.
    public let matrix: [Double]

    /// The homography taking each of four `source` points to the matching `target` point; nil
    /// when three of either are collinear (no such map).
    public init?(from source: [SIMD2<Double>], to target: [SIMD2<Double>]) {
        guard source.count == 4, target.count == 4 else { return nil }
        // Unknowns h0…h7 (h8 = 1): u = (h0 x + h1 y + h2) / (h6 x + h7 y + 1), v likewise with h3…h5.
        var system = [[Double]]()
        for (p, q) in zip(source, target) {
            system.append([p.x, p.y, 1, 0, 0, 0, -q.x * p.x, -q.x * p.y, q.x])
            system.append([0, 0, 0, p.x, p.y, 1, -q.y * p.x, -q.y * p.y, q.y])
        }
        guard let solution = Homography.solve(system) else { return nil }
        matrix = solution + [1]
    }

    init(matrix: [Double]) { self.matrix = matrix }

    /// Where `point` goes; nil for a point on the horizon line (mapped to infinity).
    public func apply(_ point: SIMD2<Double>) -> SIMD2<Double>? {
        let m = matrix
        let w = m[6] * point.x + m[7] * point.y + m[8]
        guard abs(w) > 1e-12 else { return nil }
        return SIMD2((m[0] * point.x + m[1] * point.y + m[2]) / w, (m[3] * point.x + m[4] * point.y + m[5]) / w)
    }

    /// The map back; nil when this one is singular.
    public func inverted() -> Homography? {
        let m = matrix
        let cofactors = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        let determinant = m[0] * cofactors[0] + m[1] * cofactors[3] + m[2] * cofactors[6]
        guard abs(determinant) > 1e-15, abs(cofactors[8]) > 1e-15 else { return nil }
        return Homography(matrix: cofactors.map { $0 / cofactors[8] })
    }

    /// Solves the 8×8 system given as rows of 8 coefficients and a right-hand side (Gaussian
    /// elimination with partial pivoting); nil when it is singular.
    static func solve(_ rows: [[Double]]) -> [Double]? {
        var a = rows
        let n = 8
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(a[$0][column]) < abs(a[$1][column]) }),
                  abs(a[pivot][column]) > 1e-12 else { return nil }
            a.swapAt(column, pivot)
            for row in (column + 1)..<n {
                let factor = a[row][column] / a[column][column]
                if factor == 0 { continue }
                for k in column...n { a[row][k] -= factor * a[column][k] }
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = a[row][n]
            for k in (row + 1)..<n { sum -= a[row][k] * x[k] }
            x[row] = sum / a[row][row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
