import CoachData
import CoachVision
import XCTest

final class MotionMaskTests: XCTestCase {
    private let board = RGBColor(red: 90, green: 60, blue: 40)
    private let red = RGBColor(red: 170, green: 30, blue: 30)

    /// A `width × height` frame of `background` (plus optional ±`noise` per channel from `seed`)
    /// with discs drawn where pixel centres lie within `radius` of a centre.
    private func frame(width: Int = 160, height: Int = 120, background: RGBColor? = nil, texture: Bool = false,
                       discs: [(x: Double, y: Double, radius: Double, color: RGBColor)] = [],
                       noise: Int = 0, seed: UInt64 = 1) -> RGBImage {
        var image = RGBImage(width: width, height: height, color: background ?? board)
        var state = seed
        for y in 0..<height {
            for x in 0..<width {
                var color = image[x, y]
                if texture {
                    // A fixed grass-like pattern (the same in every frame).
                    let shade = Int((x * 7919 + y * 104_729) % 41) - 20
                    color = RGBColor(red: UInt8(clamping: 60 + shade / 2), green: UInt8(clamping: 125 + shade),
                                     blue: UInt8(clamping: 45 + shade / 3))
                }
                for disc in discs {
                    let dx = Double(x) + 0.5 - disc.x, dy = Double(y) + 0.5 - disc.y
                    if dx * dx + dy * dy <= disc.radius * disc.radius { color = disc.color }
                }
                if noise > 0 {
                    func jitter(_ value: UInt8) -> UInt8 {
                        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        return UInt8(clamping: Int(value) + Int((state >> 33) % UInt64(2 * noise + 1)) - noise)
                    }
                    color = RGBColor(red: jitter(color.red), green: jitter(color.green), blue: jitter(color.blue))
                }
                image[x, y] = color
            }
        }
        return image
    }

    private func movingBlobs(_ mask: MotionMask) throws -> [ConnectedComponents.Blob] {
        try XCTUnwrap(ConnectedComponents(mask: mask.isMoving, width: mask.width, height: mask.height)).blobs
    }

    func testRedBagOverBoardOfEqualLuminanceMovesInColourButNotInLuminance() throws {
        // Rec. 601 luminance: red 0.299·170 + 0.587·30 + 0.114·30 = 71.8; board 26.9 + 35.2 + 4.6 = 66.7.
        let redLuminance = 0.299 * 170 + 0.587 * 30 + 0.114 * 30
        let boardLuminance = 0.299 * 90 + 0.587 * 60 + 0.114 * 40
        XCTAssertEqual(redLuminance - boardLuminance, 5.2, accuracy: 0.1)
        // Their colour difference is |170 − 90| + |30 − 60| + |30 − 40| = 120, four times the threshold.

        let frames = [frame(), frame(discs: [(40, 60, 6, red)]), frame(discs: [(56, 60, 6, red)])]
        var mask = MotionMask(downscaleFactor: 2)
        for image in frames { mask.update(with: image) }

        // Colour: one blob, where the disc is now (56, 60), none at its previous place (40, 60).
        let blobs = try movingBlobs(mask)
        XCTAssertEqual(blobs.count, 1)
        let blob = try XCTUnwrap(blobs.first)
        XCTAssertEqual(Double(mask.originX) + blob.centroidX * 2, 56, accuracy: 0.5)
        XCTAssertEqual(Double(mask.originY) + blob.centroidY * 2, 60, accuracy: 0.5)
        XCTAssertFalse(mask.isMoving[(60 / 2) * mask.width + 40 / 2], "no ghost where the bag was")

        // Luminance differencing of the same block-averaged frames: the largest change anywhere is
        // the 5 grey levels between bag and board, under any usable luminance threshold (≥ 10), so
        // a luminance-only mask would be empty.
        let luminance = frames.map { GrayImage(luminanceOf: $0, downscaledBy: 2) }
        var largestChange: Float = 0
        for (before, after) in zip(luminance, luminance.dropFirst()) {
            for (a, b) in zip(before.pixels, after.pixels) { largestChange = max(largestChange, abs(a - b)) }
        }
        XCTAssertGreaterThan(largestChange, 4)   // it did see the bag, faintly
        XCTAssertLessThan(largestChange, 6)
    }

    func testSlowOverlappingDiscShowsWholeWhereItIsNow() throws {
        // A disc of radius 8 moving 3 px a frame overlaps most of its previous positions.
        var mask = MotionMask(downscaleFactor: 2)
        var frames: [RGBImage] = []
        for index in 0..<8 {
            let discs: [(x: Double, y: Double, radius: Double, color: RGBColor)] =
                index == 0 ? [] : [(40 + 3 * Double(index), 60, 8, red)]
            frames.append(frame(texture: true, discs: discs))
            mask.update(with: frames[index])
        }
        let blobs = try movingBlobs(mask)
        XCTAssertEqual(blobs.count, 1)
        let blob = try XCTUnwrap(blobs.first)
        // The whole disc: π·(8/2)² ≈ 50 analysis pixels, centred on (61, 60).
        XCTAssertEqual(Double(blob.area), Double.pi * 16, accuracy: 12)
        XCTAssertEqual(blob.centroidX * 2, 61, accuracy: 0.5)
        XCTAssertEqual(blob.centroidY * 2, 60, accuracy: 0.5)

        // Three-frame differencing (moving when the colour differs from both previous frames by
        // more than 30) keeps a thin leading crescent and a ghost where the two previous positions
        // overlap but the current one does not: its largest blob is far smaller and off centre.
        var crescent: [Bool] = []
        let (older, previous, current) = (frames[5], frames[6], frames[7])
        for y in stride(from: 0, to: 120, by: 2) {
            for x in stride(from: 0, to: 160, by: 2) {
                func block(_ image: RGBImage) -> (Int, Int, Int) {
                    var sum = (0, 0, 0)
                    for dy in 0..<2 { for dx in 0..<2 {
                        let color = image[x + dx, y + dy]
                        sum = (sum.0 + Int(color.red), sum.1 + Int(color.green), sum.2 + Int(color.blue))
                    } }
                    return ((sum.0 + 2) / 4, (sum.1 + 2) / 4, (sum.2 + 2) / 4)
                }
                let a = block(older), b = block(previous), c = block(current)
                let fromPrevious = abs(c.0 - b.0) + abs(c.1 - b.1) + abs(c.2 - b.2)
                let fromOlder = abs(c.0 - a.0) + abs(c.1 - a.1) + abs(c.2 - a.2)
                crescent.append(fromPrevious > 30 && fromOlder > 30)
            }
        }
        let threeFrame = try XCTUnwrap(ConnectedComponents(mask: crescent, width: 80, height: 60)).blobs
        let largest = try XCTUnwrap(threeFrame.max { $0.area < $1.area })
        XCTAssertLessThan(largest.area, blob.area / 2)
        XCTAssertGreaterThan(abs(largest.centroidX * 2 - 61), 3)
    }

    func testStaticNoisySceneNeverMoves() {
        var mask = MotionMask(downscaleFactor: 2)
        for index in 0..<20 {
            mask.update(with: frame(texture: true, noise: 4, seed: UInt64(index + 1)))
            XCTAssertFalse(mask.isMoving.contains(true), "frame \(index)")
        }
        XCTAssertEqual(mask.frameCount, 20)
    }

    func testAnObjectThatStopsJoinsTheBackgroundAfterTheSteadyFrames() {
        var mask = MotionMask(downscaleFactor: 2)
        mask.steadyFrameCount = 5
        mask.update(with: frame())
        mask.update(with: frame(discs: [(50, 60, 6, red)]))
        mask.update(with: frame(discs: [(70, 60, 6, red)]))   // it lands here and stays
        XCTAssertTrue(mask.isMoving.contains(true))
        // Still frames 1…4 after landing: still moving; the 5th steady frame makes it background.
        for still in 1...5 {
            mask.update(with: frame(discs: [(70, 60, 6, red)]))
            XCTAssertEqual(mask.isMoving.contains(true), still < 5, "still frame \(still)")
        }
    }

    func testRegionIsAnalysedInWholeBlocksAndAChangeRestartsTheStream() {
        var mask = MotionMask(downscaleFactor: 4)
        let region = BoundingBox(minX: 10.5, minY: 20, maxX: 90, maxY: 61)
        mask.update(with: frame(), region: region)
        // Columns 10…89 (80 px → 20 blocks), rows 20…60 (41 px → 10 whole blocks).
        XCTAssertEqual(mask.originX, 10)
        XCTAssertEqual(mask.originY, 20)
        XCTAssertEqual(mask.width, 20)
        XCTAssertEqual(mask.height, 10)
        mask.update(with: frame(discs: [(50, 40, 6, red)]), region: region)
        XCTAssertTrue(mask.isMoving.contains(true))
        XCTAssertEqual(mask.frameCount, 2)

        // Another frame size: a new stream, whose first mask is empty.
        mask.update(with: frame(width: 100, height: 80, discs: [(20, 40, 6, red)]))
        XCTAssertEqual(mask.frameCount, 1)
        XCTAssertEqual(mask.width, 25)
        XCTAssertEqual(mask.height, 20)
        XCTAssertFalse(mask.isMoving.contains(true))
    }

    func testTinyAndEmptyFramesGiveEmptyMasks() {
        var mask = MotionMask(downscaleFactor: 2)
        mask.update(with: RGBImage(width: 1, height: 1, color: .white))
        mask.update(with: RGBImage(width: 1, height: 1, color: .black))
        XCTAssertEqual(mask.width, 0)
        XCTAssertTrue(mask.isMoving.isEmpty)
        mask.update(with: RGBImage(width: 0, height: 0, color: .black))
        XCTAssertTrue(mask.isMoving.isEmpty)
        var single = MotionMask(downscaleFactor: 1)
        single.update(with: RGBImage(width: 1, height: 1, color: .white))
        single.update(with: RGBImage(width: 1, height: 1, color: .black))
        XCTAssertEqual(single.isMoving, [true])
    }
}
