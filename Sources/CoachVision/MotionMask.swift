import CoachData

/// Which pixels of a video stream are moving, by colour change, on frames downscaled by block
/// averaging.
///
/// A pixel moves when its colour differs from its *background* by more than `changeThreshold`,
/// measured as the sum of the absolute red, green and blue differences (0…765). Colour, not
/// luminance: a red bag (200, 30, 30) over a brown board (90, 60, 40) differs by 150 in colour
/// (110 + 30 + 10) while their luminances (Rec. 601) differ by 14.
///
/// The background of a pixel is the colour it last held steady: once a pixel's colour has stayed
/// within `steadyThreshold` of the previous frame's for `steadyFrameCount` frames in a row, that
/// colour becomes its background. This is a stand-in for three-frame differencing with the same
/// aim — the blob sits where the object is now, with no ghost where it was — that does better
/// when the object moves less than its own size between frames. Three-frame differencing
/// (`|Iₜ − Iₜ₋₁| > T` and `|Iₜ − Iₜ₋₂| > T`) then loses the part of the object that overlaps its
/// previous positions (a crescent, its centroid pushed forwards) and leaves a ghost where the two
/// previous positions overlap. Here the whole object shows at its current place as long as it
/// covers any one pixel for fewer than `steadyFrameCount + 1` frames; where it was, the pixel
/// returns to its background colour at once. Something that stops (a bag landing) joins the
/// background after `steadyFrameCount` frames; something present in the first frame and then
/// leaving leaves a still ghost for that long.
///
/// No morphology is applied: an opening would erase objects only one or two analysis pixels
/// across (a bag seen from 8 m); isolated noise pixels are left to the blob filter that follows.
///
/// Mask pixel `(x, y)` covers the frame's pixels `[originX + x·f, originX + (x+1)·f) ×
/// [originY + y·f, originY + (y+1)·f)`, `f = downscaleFactor`.
public struct MotionMask: Sendable {
    /// The side of the square blocks of frame pixels averaged into one mask pixel (at least 1).
    public let downscaleFactor: Int
    /// The colour change (sum of absolute R, G, B differences, 0…765) above which a pixel moves.
    public var changeThreshold: Int = 30
    /// The change from the previous frame (0…765) at or below which a pixel counts as steady.
    public var steadyThreshold: Int = 12
    /// Consecutive steady frames after which a pixel's colour becomes its background (at least 1).
    public var steadyFrameCount: Int = 5

    /// The mask's width in mask pixels.
    public private(set) var width = 0
    /// The mask's height in mask pixels.
    public private(set) var height = 0
    /// The frame column of the mask's left edge.
    public private(set) var originX = 0
    /// The frame row of the mask's top edge.
    public private(set) var originY = 0
    /// `height × width` flags, rows top to bottom: whether each mask pixel moves.
    public private(set) var isMoving: [Bool] = []
    /// Frames seen since the last reset (the first frame's mask is empty: nothing to compare).
    public private(set) var frameCount = 0

    private var frameWidth = -1
    private var frameHeight = -1
    private var current: [UInt8] = []
    private var previous: [UInt8] = []
    private var background: [UInt8] = []
    private var steadyCounts: [UInt8] = []
    private var rowSums: [UInt32] = []

    /// An empty mask averaging `downscaleFactor × downscaleFactor` blocks (values below 1 count as 1).
    public init(downscaleFactor: Int) {
        self.downscaleFactor = max(1, downscaleFactor)
    }

    /// Forgets every frame seen: the next frame starts a new stream.
    public mutating func reset() {
        frameWidth = -1
        frameHeight = -1
        width = 0
        height = 0
        isMoving = []
        frameCount = 0
    }

    /// Adds the next frame of the stream and updates `isMoving`.
    ///
    /// Only `region` of the frame (pixels, origin top-left; default the whole frame) is analysed,
    /// in whole blocks from its top-left corner; partial blocks at its right and bottom are
    /// dropped. A frame of another size or another region than the previous one starts a new
    /// stream (as `reset()`), whose first mask is empty.
    public mutating func update(with frame: RGBImage, region: BoundingBox? = nil) {
        let step = downscaleFactor
        let box = region ?? BoundingBox(minX: 0, minY: 0, maxX: Double(frame.width), maxY: Double(frame.height))
        let left = MotionMask.clamp(box.minX.rounded(.down), 0, frame.width)
        let top = MotionMask.clamp(box.minY.rounded(.down), 0, frame.height)
        let right = max(left, MotionMask.clamp(box.maxX.rounded(.up), 0, frame.width))
        let bottom = max(top, MotionMask.clamp(box.maxY.rounded(.up), 0, frame.height))
        let columns = (right - left) / step
        let rows = (bottom - top) / step

        let isNewStream = frame.width != frameWidth || frame.height != frameHeight || left != originX
            || top != originY || columns != width || rows != height || frameCount == 0
        if isNewStream {
            frameWidth = frame.width
            frameHeight = frame.height
            originX = left
            originY = top
            width = columns
            height = rows
            let count = columns * rows
            current = [UInt8](repeating: 0, count: count * 3)
            previous = current
            steadyCounts = [UInt8](repeating: 0, count: count)
            isMoving = [Bool](repeating: false, count: count)
            rowSums = [UInt32](repeating: 0, count: columns * step * 3)
            frameCount = 0
        }
        guard columns > 0, rows > 0 else {
            frameCount += 1
            return
        }
        downscale(frame, left: left, top: top)
        if frameCount == 0 {
            background = current
            swap(&current, &previous)
            frameCount = 1
            return
        }
        compare()
        swap(&current, &previous)
        frameCount += 1
    }

    /// Averages the analysed region's blocks into `current`.
    private mutating func downscale(_ frame: RGBImage, left: Int, top: Int) {
        let step = downscaleFactor
        let columns = width
        let spanSamples = columns * step * 3
        let blockArea = UInt32(step * step)
        let half = blockArea / 2
        let frameWidth = frame.width
        frame.pixels.withUnsafeBufferPointer { source in
            rowSums.withUnsafeMutableBufferPointer { sums in
                current.withUnsafeMutableBufferPointer { target in
                    guard let sourceBase = source.baseAddress, let sumBase = sums.baseAddress,
                          let targetBase = target.baseAddress else { return }
                    for row in 0..<height {
                        sumBase.update(repeating: 0, count: spanSamples)
                        for dy in 0..<step {
                            let line = sourceBase + ((top + row * step + dy) * frameWidth + left) * 3
                            for index in 0..<spanSamples { sumBase[index] &+= UInt32(line[index]) }
                        }
                        let output = targetBase + row * columns * 3
                        if step == 1 {
                            for index in 0..<spanSamples { output[index] = UInt8(truncatingIfNeeded: sumBase[index]) }
                            continue
                        }
                        for column in 0..<columns {
                            var red: UInt32 = 0, green: UInt32 = 0, blue: UInt32 = 0
                            var index = column * step * 3
                            for _ in 0..<step {
                                red &+= sumBase[index]
                                green &+= sumBase[index + 1]
                                blue &+= sumBase[index + 2]
                                index += 3
                            }
                            output[column * 3] = UInt8(truncatingIfNeeded: (red + half) / blockArea)
                            output[column * 3 + 1] = UInt8(truncatingIfNeeded: (green + half) / blockArea)
                            output[column * 3 + 2] = UInt8(truncatingIfNeeded: (blue + half) / blockArea)
                        }
                    }
                }
            }
        }
    }

    /// Updates the steady counts and backgrounds from `current` and `previous`, then `isMoving`.
    private mutating func compare() {
        let count = width * height
        let steadyLimit = Int32(max(0, steadyThreshold))
        let changeLimit = Int32(max(0, changeThreshold))
        let framesNeeded = UInt8(clamping: max(1, steadyFrameCount))
        current.withUnsafeBufferPointer { now in
            previous.withUnsafeBufferPointer { before in
                background.withUnsafeMutableBufferPointer { back in
                    steadyCounts.withUnsafeMutableBufferPointer { counts in
                        isMoving.withUnsafeMutableBufferPointer { moving in
                            for pixel in 0..<count {
                                let index = pixel * 3
                                let r = Int32(now[index]), g = Int32(now[index + 1]), b = Int32(now[index + 2])
                                let change = abs(r - Int32(before[index])) + abs(g - Int32(before[index + 1]))
                                    + abs(b - Int32(before[index + 2]))
                                var steady = counts[pixel]
                                steady = change <= steadyLimit ? (steady == 255 ? 255 : steady + 1) : 0
                                counts[pixel] = steady
                                if steady >= framesNeeded {
                                    back[index] = now[index]
                                    back[index + 1] = now[index + 1]
                                    back[index + 2] = now[index + 2]
                                }
                                let difference = abs(r - Int32(back[index])) + abs(g - Int32(back[index + 1]))
                                    + abs(b - Int32(back[index + 2]))
                                moving[pixel] = difference > changeLimit
                            }
                        }
                    }
                }
            }
        }
    }

    private static func clamp(_ value: Double, _ lower: Int, _ upper: Int) -> Int {
        guard value.isFinite else { return value > 0 ? upper : lower }
        if value <= Double(lower) { return lower }
        if value >= Double(upper) { return upper }
        return Int(value)
    }
}
