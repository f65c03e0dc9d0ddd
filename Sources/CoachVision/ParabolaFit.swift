/// A least-squares parabola `y = a·x² + b·x + c` through a set of points, with its residuals.
///
/// The fit is solved in centred and scaled coordinates `u = (x − mean x) / max |x − mean x|`,
/// where the 3 × 3 normal equations are well conditioned (`u` lies in −1…1), and the
/// coefficients are then converted back to `x`. Fewer than three points, fewer than three
/// distinct `x` values (all `x` equal, or only two columns of points), non-finite values or
/// unequal array lengths give nil: no unique parabola exists.
///
/// ```swift
/// let fit = ParabolaFit(x: [0, 1, 2, 3], y: [1, 2, 5, 10])   // y = x² + 1
/// fit?.a   // 1
/// ```
public struct ParabolaFit: Equatable, Sendable {
    /// The coefficient of `x²`.
    public let a: Double
    /// The coefficient of `x`.
    public let b: Double
    /// The constant term.
    public let c: Double
    /// `y − (a·x² + b·x + c)` for each input point, in input order.
    public let residuals: [Double]

    /// The mean of the input `x` values (the centre the fit was solved about).
    public let centerX: Double
    /// The half-range the centred `x` values were divided by before solving.
    public let scaleX: Double
    /// The fit in centred coordinates: `y = centered.a·u² + centered.b·u + centered.c`,
    /// `u = (x − centerX) / scaleX` (what was solved; better conditioned than `a`, `b`, `c`).
    public let centered: (a: Double, b: Double, c: Double)

    /// The parabola minimising the sum of squared vertical residuals through the points
    /// `(x[i], y[i])`, or nil when it is not unique (see the type's documentation).
    public init?(x: [Double], y: [Double]) {
        let count = x.count
        guard count >= 3, y.count == count else { return nil }
        guard x.allSatisfy({ $0.isFinite }), y.allSatisfy({ $0.isFinite }) else { return nil }

        let meanX = x.reduce(0, +) / Double(count)
        var halfRange = 0.0
        for value in x { halfRange = max(halfRange, abs(value - meanX)) }
        guard halfRange > 0, halfRange.isFinite else { return nil }

        // Three distinct abscissae are needed for a unique parabola.
        var distinct: [Double] = []
        for value in x where !distinct.contains(value) {
            distinct.append(value)
            if distinct.count == 3 { break }
        }
        guard distinct.count == 3 else { return nil }

        // Normal equations in u: [Σu⁴ Σu³ Σu²; Σu³ Σu² Σu; Σu² Σu n] · (α, β, γ) = (Σu²y, Σuy, Σy).
        var s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0
        var t0 = 0.0, t1 = 0.0, t2 = 0.0
        for index in 0..<count {
            let u = (x[index] - meanX) / halfRange
            let u2 = u * u
            s1 += u
            s2 += u2
            s3 += u2 * u
            s4 += u2 * u2
            t0 += y[index]
            t1 += u * y[index]
            t2 += u2 * y[index]
        }
        let matrix: [[Double]] = [[s4, s3, s2], [s3, s2, s1], [s2, s1, Double(count)]]
        guard let solution = ParabolaFit.solve(matrix, [t2, t1, t0]) else { return nil }
        let (alpha, beta, gamma) = (solution[0], solution[1], solution[2])

        let scale2 = halfRange * halfRange
        let a = alpha / scale2
        let b = beta / halfRange - 2 * alpha * meanX / scale2
        let c = alpha * meanX * meanX / scale2 - beta * meanX / halfRange + gamma
        guard a.isFinite, b.isFinite, c.isFinite else { return nil }

        var residuals = [Double](repeating: 0, count: count)
        for index in 0..<count {
            let u = (x[index] - meanX) / halfRange
            residuals[index] = y[index] - ((alpha * u + beta) * u + gamma)
        }
        self.a = a
        self.b = b
        self.c = c
        self.residuals = residuals
        self.centerX = meanX
        self.scaleX = halfRange
        self.centered = (alpha, beta, gamma)
    }

    /// The fitted `y` at `x`.
    public func value(at x: Double) -> Double {
        let u = (x - centerX) / scaleX
        return (centered.a * u + centered.b) * u + centered.c
    }

    /// The slope `dy/dx = 2a·x + b` at `x`.
    public func slope(at x: Double) -> Double {
        let u = (x - centerX) / scaleX
        return (2 * centered.a * u + centered.b) / scaleX
    }

    /// The root mean square of the residuals.
    public var rootMeanSquareResidual: Double {
        guard !residuals.isEmpty else { return 0 }
        return (residuals.reduce(0) { $0 + $1 * $1 } / Double(residuals.count)).squareRoot()
    }

    /// Two fits are equal when their coefficients, residuals and centring are.
    public static func == (left: ParabolaFit, right: ParabolaFit) -> Bool {
        left.a == right.a && left.b == right.b && left.c == right.c && left.residuals == right.residuals
            && left.centerX == right.centerX && left.scaleX == right.scaleX
    }

    /// Gaussian elimination with partial pivoting; nil when a pivot vanishes relative to the
    /// matrix's scale (a singular or numerically singular system).
    private static func solve(_ matrix: [[Double]], _ right: [Double]) -> [Double]? {
        var m = matrix
        var v = right
        let n = v.count
        var largest = 0.0
        for row in m { for value in row { largest = max(largest, abs(value)) } }
        guard largest > 0 else { return nil }
        for column in 0..<n {
            var pivot = column
            for row in (column + 1)..<n where abs(m[row][column]) > abs(m[pivot][column]) { pivot = row }
            guard abs(m[pivot][column]) > 1e-12 * largest else { return nil }
            if pivot != column {
                m.swapAt(pivot, column)
                v.swapAt(pivot, column)
            }
            for row in (column + 1)..<n {
                let factor = m[row][column] / m[column][column]
                for k in column..<n { m[row][k] -= factor * m[column][k] }
                v[row] -= factor * v[column]
            }
        }
        var solution = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = v[row]
            for k in (row + 1)..<n { sum -= m[row][k] * solution[k] }
            solution[row] = sum / m[row][row]
        }
        return solution
    }
}
