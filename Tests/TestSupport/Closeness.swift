import XCTest

/// The largest absolute difference between two equally long float sequences.
public func maxAbsoluteDifference<A: Collection, B: Collection>(_ a: A, _ b: B) -> Float
where A.Element == Float, B.Element == Float {
    precondition(a.count == b.count, "lengths differ: \(a.count) vs \(b.count)")
    var m: Float = 0
    for (x, y) in zip(a, b) { m = max(m, abs(x - y)) }
    return m
}

/// Asserts two float sequences agree elementwise within `absolute + relative·|expected|`.
public func assertClose<A: Collection, B: Collection>(
    _ actual: A, _ expected: B, absolute: Float = 1e-5, relative: Float = 1e-4,
    _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) where A.Element == Float, B.Element == Float {
    guard actual.count == expected.count else {
        XCTFail("count \(actual.count) ≠ \(expected.count) \(message())", file: file, line: line)
        return
    }
    var worst: (index: Int, a: Float, e: Float)? = nil
    var worstExcess: Float = 0
    for (i, (a, e)) in zip(actual, expected).enumerated() {
        let excess = abs(a - e) - (absolute + relative * abs(e))
        if excess > worstExcess || a.isNaN != e.isNaN { worstExcess = max(excess, worstExcess); worst = (i, a, e) }
    }
    if let w = worst {
        XCTFail("element \(w.index): \(w.a) vs expected \(w.e) \(message())", file: file, line: line)
    }
}
