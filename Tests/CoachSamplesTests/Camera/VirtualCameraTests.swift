import CoachSamples
import XCTest

/// Projection against hand-worked pixels.
final class VirtualCameraTests: XCTestCase {
    /// A camera at (0, 1, −5) looking along +z (so world +x is on the image's left), f = 1000 px,
    /// 1920 × 1080. The point (0.5, 1.5, 0) is 5 m deep, 0.5 m to the image's left and 0.5 m up:
    /// u = 1000 · (−0.5) / 5 + 960 = 860, v = 1000 · (−0.5) / 5 + 540 = 440.
    func testPointLandsAtHandWorkedPixel() throws {
        let camera = VirtualCamera(position: SIMD3(0, 1, -5), lookingAt: SIMD3(0, 1, 0), focalLength: 1000, width: 1920, height: 1080)
        let projected = try XCTUnwrap(camera.project(SIMD3(0.5, 1.5, 0)))
        XCTAssertEqual(projected.position.x, 860 / 1920, accuracy: 1e-6)
        XCTAssertEqual(projected.position.y, 440 / 1080, accuracy: 1e-6)
        XCTAssertEqual(projected.depth, 5, accuracy: 1e-6)
        XCTAssertNil(camera.project(SIMD3(0, 1, -6)), "behind the camera")
        // The target lands at the image centre.
        let centre = try XCTUnwrap(camera.project(SIMD3(0, 1, 0)))
        XCTAssertEqual(centre.position, SIMD2(0.5, 0.5))
    }

    /// Portrait camera looking down from above: a point below the target appears lower in the image.
    func testPitchedPortraitCamera() throws {
        let camera = VirtualCamera(position: SIMD3(0, 4, -4), lookingAt: SIMD3(0, 0, 0), focalLength: 800, width: 1080, height: 1920)
        let target = try XCTUnwrap(camera.project(SIMD3(0, 0, 0)))
        XCTAssertEqual(target.position.x, 0.5, accuracy: 1e-6)
        XCTAssertEqual(target.position.y, 0.5, accuracy: 1e-6)
        XCTAssertEqual(target.depth, Float(32).squareRoot(), accuracy: 1e-5)
        // (0, 0, 1) by hand: offset (0, −4, 5) from the camera, view direction (0, −1, 1)/√2,
        // depth = (4 + 5)/√2 = 6.364, down component = (0, −1, −1)/√2 · (0, −4, 5) = (4 − 5)/√2 = −0.7071,
        // so v = 800 · (−0.7071) / 6.364 + 960 = 871.1 (higher in the picture: farther away).
        let far = try XCTUnwrap(camera.project(SIMD3(0, 0, 1)))
        XCTAssertEqual(far.position.y * 1920, 871.11, accuracy: 0.05)
    }
}
