import CoachData
import CoachSamples
import Foundation
import XCTest

/// The rendered game videos show what their truth says: bags where their parabolas put them, in
/// their colours; the board and hole where the corners say; the shake only at the start.
final class GameVideoTests: XCTestCase {
    private func smallGame() -> GameVideo {
        var configuration = GameVideoConfiguration()
        configuration.width = 640
        configuration.height = 360
        return GameVideo(configuration: configuration)
    }

    func testBagsAppearOnTheirParabolasInTheirColours() throws {
        let video = smallGame()
        if let folder = ProcessInfo.processInfo.environment["COACH_DUMP_GAME_FRAMES"] {
            for index in stride(from: 0, to: video.frameCount, by: 5) {
                try ImageEncoder.pngData(video.frame(index)).write(to: URL(fileURLWithPath: folder)
                    .appendingPathComponent(String(format: "frame-%04d.png", index)))
            }
        }
        XCTAssertEqual(video.throwTruths.map(\.landing), [.board, .hole, .missed])
        for (index, truth) in video.throwTruths.enumerated() {
            // Mid-flight, the pixel under the bag's centre is the bag's colour (blur keeps its core).
            let middle = (truth.releaseTime + truth.landingTime) / 2
            let frameIndex = Int((middle * video.configuration.frameRate).rounded())
            let centre = video.bagPosition(index, at: video.time(ofFrame: frameIndex) - 0.25 / 30)
            let pixel = video.frame(frameIndex)[Int(centre.x), Int(centre.y)]
            if truth.isRedBag {
                XCTAssertGreaterThan(Int(pixel.red), Int(pixel.blue) + 80, "throw \(index): \(pixel)")
            } else {
                XCTAssertGreaterThan(Int(pixel.blue), Int(pixel.red) + 80, "throw \(index): \(pixel)")
            }
            // Its parabola, evaluated in Vision's coordinates, passes through the bag's centre.
            let x = centre.x / 640, y = 1 - centre.y / 360
            let c = truth.equationCoefficients
            XCTAssertEqual(c.x * x * x + c.y * x + c.z, y, accuracy: 1e-9)
            XCTAssertLessThan(c.x, 0, "a thrown bag's path opens downwards with y up")
            XCTAssertGreaterThan(truth.speed, 1)
            XCTAssertEqual(truth.landingTime - truth.releaseTime, 0.95, accuracy: 1e-9)
        }
        // After landing: the bag on the board and the one beside it stay; the one in the hole is gone.
        let last = video.frame(video.frameCount - 1)
        for truth in video.throwTruths {
            let pixel = last[Int(truth.landingPoint.x), Int(truth.landingPoint.y)]
            let bagColoured = truth.isRedBag ? Int(pixel.red) > Int(pixel.green) + 100 : Int(pixel.blue) > Int(pixel.red) + 100
            XCTAssertEqual(bagColoured, truth.landing != .hole, "\(truth.landing): \(pixel)")
        }
        XCTAssertEqual(last[Int(video.holeCentre.x), Int(video.holeCentre.y)], RGBColor(red: 22, green: 16, blue: 12))
    }

    func testShakeOnlyInTheFirstSecondAndTheScaleIsTheBoards() {
        let video = smallGame()
        XCTAssertEqual(video.firstStillFrame, 30)
        XCTAssertTrue(video.shakes[..<30].contains { $0 != SIMD2(0, 0) })
        XCTAssertTrue(video.shakes[30...].allSatisfy { $0 == SIMD2(0, 0) })
        // A shaken frame is the still scene moved by its shake.
        let shaken = video.shakes[..<30].firstIndex { abs($0.x) > 2 && abs($0.y) > 2 }!
        let shift = video.shakes[shaken]
        let still = video.background
        let frame = video.frame(shaken)
        XCTAssertEqual(frame[400 + shift.x, 300 + shift.y], still[400, 300])
        // 1.2192 m over the mean of the long edges (140 and 160 px at 640 wide).
        XCTAssertEqual(video.metresPerPixel, 1.2192 / 150, accuracy: 1e-12)
        XCTAssertEqual(video.poses.count, video.frameCount)
        XCTAssertTrue(video.poses.allSatisfy { $0.allSatisfy { $0.x > 0 && $0.x < 640 && $0.y > 0 && $0.y < 360 } })
    }
}
