import XCTest
import CoachTensor

final class TensorTests: XCTestCase {
    func testReshapeKeepsScalars() {
        let t = Tensor(shape: [2, 3], scalars: [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(t.reshaped(to: [3, -1]).shape, [3, 2])
    }
}
