import CoachData
import CoachVision
import Foundation

/// Finds the parabolic paths of small moving objects in a video, frame by frame — the
/// equivalent of Vision's stateful `VNDetectTrajectoriesRequest`, with the same parameters and
/// observations (Apple's Action & Vision app uses it to follow the bags).
///
/// ```swift
/// let detector = TrajectoryDetector(trajectoryLength: 10)
/// detector.objectMaximumNormalizedRadius = 0.05
/// for (frame, time) in video {
///     for trajectory in detector.process(frame, at: time) where trajectory.confidence > 0.5 {
///         let pixels = trajectory.detectedPoints.map {
///             trajectory.imagePoint($0, imageWidth: frame.width, imageHeight: frame.height)
///         }
///     }
/// }
/// ```
///
/// **How.** Each analysed frame is block-averaged by `downscaleFactor(frameWidth:frameHeight:
/// minimumNormalizedRadius:)` inside the region of interest; `MotionMask` marks the pixels whose
/// colour changed from their steady background; `ConnectedComponents` turns them into blobs,
/// kept when their area is at least two analysis pixels and their enclosing-circle radius lies
/// between the minimum and maximum radius. Blob centroids are linked to the trajectories in
/// progress: each trajectory predicts where its object is now (`x` linear and `y` quadratic in
/// time once it has three points) and takes the nearest blob inside a gate around that
/// prediction; trajectories with three or more points choose first, then those with two, then
/// single points. Blobs left over start trajectories. A trajectory that finds no blob in more
/// than `maximumMissedFrames` analysed frames in a row ends. A trajectory with at least
/// `trajectoryLength` points whose last `trajectoryLength` points spread horizontally over at
/// least one object radius (and two analysis pixels) is reported in every frame it is found
/// in, with a parabola `y = a·x² + b·x + c` fitted to those points.
///
/// **Confidence** measures how much the points look like a thrown object's flight: the product
/// of a fit score (distance from the parabola, and horizontal motion uniform in time, relative
/// to the centroid noise expected at the analysis scale and the object's size), a gravity score
/// (the path bends downwards, ∩, not ∪), a span score (it moved several radii) and a point-count
/// score (points beyond the three any parabola fits). Real flights score about 0.9–0.97;
/// random flicker and swinging limbs near 0. `TrajectoryConfidence` has the formulas.
///
/// **Coordinates** are Vision's normalised ones, origin at the BOTTOM-LEFT, relative to the
/// region of interest; radii are fractions of the frame's longer side.
/// `TrajectoryObservation.imagePoint(_:imageWidth:imageHeight:)` converts to pixels (top-left).
///
/// **Identity.** Trajectories get UUIDs when first reported, numbered from a namespace: the
/// n-th trajectory of a stream has the namespace's first eight bytes (version nibble 8, RFC
/// 9562's custom layout) and its last eight bytes exclusive-or `n` (variant bits kept), so the
/// same video gives the same UUIDs. `reset()` restarts the numbering.
///
/// **Speed.** 1280 × 720 frames are analysed at 320 × 180; a frame costs about one pass over
/// its bytes (the block average) and small work per analysis pixel.
public final class TrajectoryDetector {
    /// Seconds between analysed frames: frames arriving sooner (within 1 ms) after the last
    /// analysed one are skipped and return no observations. 0 (the default) analyses every frame.
    public var frameAnalysisSpacing: Double
    /// How many points a trajectory needs before it is reported, and how many it reports
    /// (at least 5, as Vision's five projected points need five detected ones; the app uses 10).
    public var trajectoryLength: Int {
        didSet { trajectoryLength = max(5, trajectoryLength) }
    }
    /// Moving objects whose enclosing-circle radius is smaller than this fraction of the frame's
    /// longer side are ignored (default 0). A value above 0 may also lower the downscale factor.
    public var objectMinimumNormalizedRadius: Double = 0
    /// Moving objects whose enclosing-circle radius is larger than this fraction of the frame's
    /// longer side are ignored (default 1: none; the app excludes the thrower this way).
    public var objectMaximumNormalizedRadius: Double = 1
    /// The part of the frame analysed, in Vision's normalised coordinates (a `NormalizedRect`
    /// whose `y` is measured from the BOTTOM; `box.visionRect` converts a top-left box).
    /// Observations' coordinates are relative to it. Default: the whole frame.
    public var regionOfInterest = NormalizedRect(x: 0, y: 0, width: 1, height: 1)
    /// The frame time the caller aims for, in seconds (nil: none). Vision lowers its accuracy
    /// when frames take longer; Coach keeps results deterministic and ignores it — it runs far
    /// faster than real time anyway.
    public var targetFrameTime: Double?
    /// Analysed frames in a row a trajectory may go without finding its object before it ends.
    public var maximumMissedFrames = 3
    /// The fastest an object may move between a trajectory's first and second point, in frame
    /// longer sides per second (default 2: a bag crossing a 640-px frame in half a second).
    public var maximumSpeed: Double = 2
    /// The colour change (sum of absolute R, G, B differences, 0…765) that makes a pixel move.
    public var changeThreshold = 30
    /// The namespace trajectory UUIDs are numbered from (see the type's documentation).
    public let identifierNamespace: UUID

    /// The default identifier namespace: trajectory n gets `C0AC7A3E-0000-8000-8000-00000000000n`
    /// (n in hexadecimal).
    public static let defaultIdentifierNamespace = UUID(uuid: (0xC0, 0xAC, 0x7A, 0x3E, 0, 0, 0x80, 0,
                                                              0x80, 0, 0, 0, 0, 0, 0, 0))

    private var motionMask = MotionMask(downscaleFactor: 1)
    private var tracks: [TrajectoryTrack] = []
    private var frameWidth: Int?
    private var frameHeight: Int?
    private var lastFrameTime: Double?
    private var lastAnalyzedTime: Double?
    private var reportedCount: UInt64 = 0

    /// The most trajectories followed at once; the most blobs considered per frame.
    private let maximumTrackCount = 64
    private let maximumBlobCount = 128
    /// The fewest analysis pixels a blob needs.
    private let minimumBlobArea = 2

    /// A detector analysing frames `frameAnalysisSpacing` seconds apart (0: every frame) and
    /// reporting trajectories of `trajectoryLength` points (values below 5 count as 5).
    public init(frameAnalysisSpacing: Double = 0, trajectoryLength: Int = 10,
                identifierNamespace: UUID = TrajectoryDetector.defaultIdentifierNamespace) {
        self.frameAnalysisSpacing = frameAnalysisSpacing
        self.trajectoryLength = max(5, trajectoryLength)
        self.identifierNamespace = identifierNamespace
    }

    /// Forgets every frame and trajectory: the next frame starts a new video (of any size), and
    /// UUID numbering restarts.
    public func reset() {
        restart()
        reportedCount = 0
    }

    /// Ends every trajectory and forgets the frames seen, keeping the UUID numbering.
    private func restart() {
        motionMask.reset()
        tracks = []
        frameWidth = nil
        frameHeight = nil
        lastFrameTime = nil
        lastAnalyzedTime = nil
    }

    /// The side of the pixel blocks averaged before analysis for a `frameWidth × frameHeight`
    /// frame: the longer side divided by 320 (rounded down, at least 1), so frames are analysed
    /// at about 320 pixels across (1280 × 720 → 4, 640 × 360 → 2); lowered when objects as small
    /// as `minimumNormalizedRadius` would be under 1.5 analysis pixels in radius.
    public static func downscaleFactor(frameWidth: Int, frameHeight: Int, minimumNormalizedRadius: Double = 0) -> Int {
        let longerSide = max(frameWidth, frameHeight, 1)
        var factor = max(1, longerSide / 320)
        if minimumNormalizedRadius > 0, minimumNormalizedRadius.isFinite {
            let radiusPixels = minimumNormalizedRadius * Double(longerSide)
            factor = min(factor, max(1, Int(min(radiusPixels / 1.5, Double(factor)))))
        }
        return factor
    }

    /// Analyses `frame`, shown at `time` seconds, and returns the trajectories it updated (those
    /// with at least `trajectoryLength` points whose object was found in this frame).
    ///
    /// Never fails; inputs `processStrictly(_:at:)` rejects are handled so: a frame of another
    /// size than the previous ones starts a new video (every trajectory ends; UUID numbering goes
    /// on, so UUIDs stay unique); a frame whose time is not finite or not after the previous
    /// frame's, or a region of interest outside the frame, is ignored (no observations, nothing
    /// changes). A frame too small to hold an analysis pixel, or skipped by
    /// `frameAnalysisSpacing`, returns no observations.
    public func process(_ frame: RGBImage, at time: Double) -> [TrajectoryObservation] {
        if let width = frameWidth, let height = frameHeight, width != frame.width || height != frame.height {
            restart()
        }
        return (try? processStrictly(frame, at: time)) ?? []
    }

    /// As `process(_:at:)`, but frames must come in increasing time and keep one size
    /// (`reset()` starts another video), and the region of interest must overlap the frame.
    /// - Throws: `TrajectoryDetectionError` for a non-finite or non-increasing time, a change of
    ///   frame size, or a region of interest outside the frame; the detector is then unchanged.
    public func processStrictly(_ frame: RGBImage, at time: Double) throws -> [TrajectoryObservation] {
        guard time.isFinite else { throw TrajectoryDetectionError.invalidTime(time) }
        if let previous = lastFrameTime, time <= previous {
            throw TrajectoryDetectionError.timeNotIncreasing(previous: previous, current: time)
        }
        if let width = frameWidth, let height = frameHeight, width != frame.width || height != frame.height {
            throw TrajectoryDetectionError.frameSizeChanged(expectedWidth: width, expectedHeight: height,
                                                            width: frame.width, height: frame.height)
        }
        guard let region = clampedRegion() else {
            throw TrajectoryDetectionError.emptyRegionOfInterest(regionOfInterest)
        }
        frameWidth = frame.width
        frameHeight = frame.height
        lastFrameTime = time
        if frameAnalysisSpacing > 0, let analyzed = lastAnalyzedTime, time - analyzed < frameAnalysisSpacing - 0.001 {
            return []
        }
        lastAnalyzedTime = time

        let factor = TrajectoryDetector.downscaleFactor(frameWidth: frame.width, frameHeight: frame.height,
                                                        minimumNormalizedRadius: objectMinimumNormalizedRadius)
        if factor != motionMask.downscaleFactor { motionMask = MotionMask(downscaleFactor: factor) }
        motionMask.changeThreshold = changeThreshold
        let width = Double(frame.width), height = Double(frame.height)
        let regionPixels = BoundingBox(minX: region.x * width, minY: (1 - region.y - region.height) * height,
                                       maxX: (region.x + region.width) * width, maxY: (1 - region.y) * height)
        motionMask.update(with: frame, region: regionPixels)

        let candidates = blobs(frameWidth: frame.width, frameHeight: frame.height, time: time)
        let matched = link(candidates, at: time, downscaleFactor: factor,
                           longerSide: Double(max(frame.width, frame.height)))
        return observations(for: matched, at: time, region: region, regionPixels: regionPixels,
                            downscaleFactor: factor, longerSide: Double(max(frame.width, frame.height)))
    }

    // MARK: - Steps

    /// The region of interest clamped to the unit square; nil when nothing of it is left.
    private func clampedRegion() -> NormalizedRect? {
        let roi = regionOfInterest
        guard roi.x.isFinite, roi.y.isFinite, roi.width.isFinite, roi.height.isFinite else { return nil }
        let left = max(0, roi.x), bottom = max(0, roi.y)
        let right = min(1, roi.x + roi.width), top = min(1, roi.y + roi.height)
        guard right > left, top > bottom else { return nil }
        return NormalizedRect(x: left, y: bottom, width: right - left, height: top - bottom)
    }

    /// The moving blobs of the current mask that pass the size filters, as full-frame points.
    private func blobs(frameWidth: Int, frameHeight: Int, time: Double) -> [TrackedPoint] {
        guard motionMask.width > 0, motionMask.height > 0,
              let components = ConnectedComponents(mask: motionMask.isMoving, width: motionMask.width,
                                                   height: motionMask.height) else { return [] }
        let scale = Double(motionMask.downscaleFactor)
        let longerSide = Double(max(frameWidth, frameHeight))
        let originX = Double(motionMask.originX), originY = Double(motionMask.originY)
        var kept: [(area: Int, point: TrackedPoint)] = []
        for blob in components.blobs where blob.area >= minimumBlobArea {
            let radius = blob.enclosingRadius * scale
            let normalizedRadius = radius / longerSide
            guard normalizedRadius >= objectMinimumNormalizedRadius,
                  normalizedRadius <= objectMaximumNormalizedRadius else { continue }
            kept.append((blob.area, TrackedPoint(x: originX + blob.centroidX * scale,
                                                 y: originY + blob.centroidY * scale,
                                                 radius: radius, time: time)))
        }
        if kept.count > maximumBlobCount {
            // Keep the largest (a stable sort keeps raster order among equal areas).
            kept = Array(kept.enumerated().sorted { left, right in
                left.element.area != right.element.area ? left.element.area > right.element.area
                    : left.offset < right.offset
            }.prefix(maximumBlobCount).map(\.element))
        }
        return kept.map(\.point)
    }

    /// Links `candidates` to the trajectories in progress, starts trajectories for the rest, ends
    /// those missing too long; returns the indices (into `tracks`) of the trajectories extended.
    private func link(_ candidates: [TrackedPoint], at time: Double, downscaleFactor: Int,
                      longerSide: Double) -> [Int] {
        var blobTaken = [Bool](repeating: false, count: candidates.count)
        var trackMatched = [Bool](repeating: false, count: tracks.count)
        let maximumDisplacement = max(0, maximumSpeed) * longerSide
        // Mature trajectories choose first: their predictions are the most reliable.
        for tier in [3, 2, 1] {
            var pairs: [(distance: Double, track: Int, blob: Int)] = []
            for (trackIndex, track) in tracks.enumerated() where min(track.points.count, 3) == tier {
                let elapsed = time - track.last.time
                let predicted = track.predictedPosition(at: time)
                let gate = track.gate(at: time, downscaleFactor: downscaleFactor,
                                      maximumDisplacement: maximumDisplacement * elapsed)
                for (blobIndex, blob) in candidates.enumerated() where !blobTaken[blobIndex] {
                    let dx = blob.x - predicted.x, dy = blob.y - predicted.y
                    let distance = (dx * dx + dy * dy).squareRoot()
                    if distance <= gate { pairs.append((distance, trackIndex, blobIndex)) }
                }
            }
            pairs.sort { left, right in
                if left.distance != right.distance { return left.distance < right.distance }
                if left.track != right.track { return left.track < right.track }
                return left.blob < right.blob
            }
            for pair in pairs where !trackMatched[pair.track] && !blobTaken[pair.blob] {
                trackMatched[pair.track] = true
                blobTaken[pair.blob] = true
                tracks[pair.track].append(candidates[pair.blob], keeping: max(trajectoryLength, 8))
            }
        }

        var extended: [TrajectoryTrack] = []
        var survivors: [TrajectoryTrack] = []
        for (index, var track) in tracks.enumerated() {
            if trackMatched[index] {
                extended.append(track)
            } else {
                track.missedFrames += 1
                if track.missedFrames <= max(0, maximumMissedFrames) { survivors.append(track) }
            }
        }
        // Extended trajectories first, then the waiting ones, then new ones: indices stay simple.
        tracks = extended + survivors
        for (blobIndex, blob) in candidates.enumerated() where !blobTaken[blobIndex] {
            guard tracks.count < maximumTrackCount else { break }
            tracks.append(TrajectoryTrack(first: blob))
        }
        return Array(0..<extended.count)
    }

    /// The observations of the extended trajectories that are long enough and fit a parabola.
    private func observations(for indices: [Int], at time: Double, region: NormalizedRect, regionPixels: BoundingBox,
                              downscaleFactor: Int, longerSide: Double) -> [TrajectoryObservation] {
        var results: [TrajectoryObservation] = []
        for index in indices where tracks[index].points.count >= trajectoryLength {
            let window = Array(tracks[index].points.suffix(trajectoryLength))
            let radius = window.reduce(0) { $0 + $1.radius } / Double(window.count)
            let xs = window.map(\.x)
            let extent = (xs.max() ?? 0) - (xs.min() ?? 0)
            guard extent >= max(radius, 2 * Double(downscaleFactor)),
                  let confidence = TrajectoryConfidence.confidence(of: window, downscaleFactor: downscaleFactor)
            else { continue }

            let points = window.map { point in
                NormalizedPoint(x: (point.x - regionPixels.minX) / regionPixels.width,
                                y: (regionPixels.maxY - point.y) / regionPixels.height)
            }
            guard let fit = ParabolaFit(x: points.map(\.x), y: points.map(\.y)) else { continue }
            let projected = points.suffix(5).map { NormalizedPoint(x: $0.x, y: fit.value(at: $0.x)) }

            if tracks[index].identifier == nil {
                reportedCount += 1
                tracks[index].identifier = identifier(number: reportedCount)
            }
            results.append(TrajectoryObservation(
                uuid: tracks[index].identifier ?? identifierNamespace,
                detectedPoints: points,
                detectedPointTimes: window.map(\.time),
                projectedPoints: Array(projected),
                equationCoefficients: SIMD3(fit.a, fit.b, fit.c),
                movingAverageRadius: radius / longerSide,
                timeRange: tracks[index].firstTime...time,
                confidence: confidence,
                regionOfInterest: region))
        }
        return results
    }

    /// The `number`-th trajectory's UUID (see the type's documentation).
    private func identifier(number: UInt64) -> UUID {
        var bytes = identifierNamespace.uuid
        bytes.6 = (bytes.6 & 0x0F) | 0x80
        var tail: UInt64 = 0
        withUnsafeBytes(of: bytes) { raw in
            for offset in 8..<16 { tail = tail << 8 | UInt64(raw[offset]) }
        }
        tail ^= number
        tail = (tail & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        withUnsafeMutableBytes(of: &bytes) { raw in
            for offset in 0..<8 { raw[15 - offset] = UInt8(truncatingIfNeeded: tail >> (8 * UInt64(offset))) }
        }
        return UUID(uuid: bytes)
    }
}
