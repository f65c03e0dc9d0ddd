import CoachData
import CoachRandom
import Foundation

/// The truth about one thrown bag in a rendered game video (pixel coordinates, origin top-left,
/// unless a name says otherwise).
public struct GameThrowTruth: Equatable, Sendable {
    /// The throw type performed.
    public var kind: ThrowKind
    /// A red bag (else blue).
    public var isRedBag: Bool
    /// Where the bag landed.
    public var landing: GameLanding
    /// When the throw's motion starts (seconds).
    public var motionStartTime: Double
    /// When the bag leaves the hand (seconds).
    public var releaseTime: Double
    /// When the bag lands (seconds).
    public var landingTime: Double
    /// The bag's centre at release (the throwing wrist).
    public var releasePoint: SIMD2<Double>
    /// The bag's centre where it lands.
    public var landingPoint: SIMD2<Double>
    /// The flight as y = a·x² + b·x + c in Vision's normalised coordinates (0…1, origin bottom-left).
    public var equationCoefficients: SIMD3<Double>
    /// The flight's length along its parabola in pixels.
    public var arcLength: Double
    /// The mean speed along the flight (arc length × metres per pixel ÷ flight time), m/s.
    public var speed: Double
    /// The elbow→wrist angle of the throwing arm in the frame nearest the release (what a camera
    /// can see), degrees above the horizontal (measured towards the board, image y up).
    public var releaseAngle: Double
    /// The throwing wrist.
    public var throwingWrist: Body18
}

/// A rendered cornhole game filmed by a fixed side camera, with everything it shows known:
/// a shaken first second, a board with its hole on the right, a stick-figure player on the left
/// whose joints are known, and bags flying along known parabolas onto the board, into the hole
/// or beside the board (issue 12's test videos).
public struct GameVideo: Sendable {
    /// What was asked for.
    public let configuration: GameVideoConfiguration
    /// Number of frames.
    public let frameCount: Int
    /// The board's corners in pixels: top-left, top-right, bottom-right, bottom-left.
    public let boardCorners: [SIMD2<Double>]
    /// The hole's centre in pixels.
    public let holeCentre: SIMD2<Double>
    /// The hole's radius in pixels along the board's length (across the image).
    public let holeRadius: Double
    /// The hole's height over its width in the image (the board's foreshortening).
    public let holeFlattening: Double
    /// Metres per pixel on the board (its 1.2192 m length over the mean of its long edges).
    public let metresPerPixel: Double
    /// The first frame after the camera shake.
    public let firstStillFrame: Int
    /// Each frame's camera shake in whole pixels (zero from `firstStillFrame` on).
    public let shakes: [SIMD2<Int>]
    /// The throws, in order.
    public let throwTruths: [GameThrowTruth]
    /// The player's body18 joints per frame, in pixels (empty when no player is shown).
    public let poses: [[SIMD2<Double>]]
    /// The bag's radius in pixels.
    public let bagRadius: Double
    /// The empty field (wall, grass, board) as the still camera sees it.
    public let background: RGBImage

    /// The time of frame `index` in seconds.
    public func time(ofFrame index: Int) -> Double { Double(index) / configuration.frameRate }

    /// Renders the game `configuration` describes (frames are drawn on demand by `frame(_:)`).
    public init(configuration: GameVideoConfiguration = GameVideoConfiguration()) {
        self.configuration = configuration
        let width = max(64, configuration.width), height = max(36, configuration.height)
        let scale = Double(width) / 1280
        let fps = max(1, configuration.frameRate)
        var g = SeededGenerator(seed: configuration.seed)
        bagRadius = 7 * scale
        // The board on the right, seen from its side: a trapezoid (its far edge shorter).
        boardCorners = [SIMD2(885, 515), SIMD2(1165, 515), SIMD2(1180, 575), SIMD2(860, 575)].map {
            SIMD2($0.x * scale, $0.y * Double(height) / 720)
        }
        let top = boardCorners[1].x - boardCorners[0].x, bottom = boardCorners[2].x - boardCorners[3].x
        metresPerPixel = 1.2192 / ((top + bottom) / 2)
        let middleY = (boardCorners[0].y + boardCorners[3].y) / 2
        let leftX = (boardCorners[0].x + boardCorners[3].x) / 2, rightX = (boardCorners[1].x + boardCorners[2].x) / 2
        holeCentre = SIMD2(leftX + 0.78 * (rightX - leftX), middleY)
        holeRadius = 0.1524 / 2 / metresPerPixel
        // Seen from the side, the board's width is foreshortened: the round hole is an ellipse.
        holeFlattening = ((boardCorners[3].y - boardCorners[0].y) / 0.6096) / (((top + bottom) / 2) / 1.2192)

        // The player, filmed from the side (the target lies along +z, which this camera shows to
        // the right): one scripted session per throw — standing still, then the throw — each from
        // the same spot on the line, as a player steps back to the line between throws. Each
        // session lasts until shortly after its bag lands; the next one starts standing.
        let performer = Performer.random(identifier: 1, heights: 1.65...1.9, leftHanded: false, using: &g)
        var segments: [(start: Double, track: MotionTrack)] = []
        var plannedTimes: [(start: Double, release: Double, landing: Double, kind: ThrowKind)] = []
        var segmentStart = 0.0
        for (index, plan) in configuration.throwPlans.enumerated() {
            var session = SessionComposer(rest: performer.restingPose, heading: 0, mirrors: false)
            var hold = MotionScript(from: performer.restingPose)
            hold.key(after: max(0.1, index == 0 ? configuration.leadInSeconds : configuration.pauseSeconds),
                     pose: performer.restingPose, tangent: .still)
            session.append(hold)
            let thrown = ThrowMotions.perform(plan.kind, from: performer.restingPose, height: performer.proportions.height,
                                              tempo: performer.tempo, using: &g)
            let start = segmentStart + session.append(thrown.script)
            let release = start + thrown.release
            let landing = release + plan.flightSeconds
            plannedTimes.append((start + thrown.motionStart, release, landing, plan.kind))
            segments.append((segmentStart, session.track))
            segmentStart = max(segmentStart + session.time, landing + 0.6)
        }
        if segments.isEmpty {
            var hold = MotionScript(from: performer.restingPose)
            hold.key(after: max(0.1, configuration.leadInSeconds), pose: performer.restingPose, tangent: .still)
            var session = SessionComposer(rest: performer.restingPose, heading: 0, mirrors: false)
            session.append(hold)
            segments.append((0, session.track))
            segmentStart = session.time
        }
        let endTime = max(segmentStart, (plannedTimes.last?.landing ?? configuration.leadInSeconds) + 1.4)
        frameCount = Int((endTime * fps).rounded(.down)) + 1
        let kinematics = ForwardKinematics(proportions: performer.proportions)
        let focal = Float(800 * scale)
        let camera = VirtualCamera(position: SIMD3(-5, 1.0, 2.4), lookingAt: SIMD3(0, 1.0, 2.4), focalLength: focal,
                                   width: Float(width), height: Float(height))
        func joints(at time: Double) -> [SIMD2<Double>] {
            let segment = segments.last { $0.start <= time } ?? segments[0]
            let body = kinematics.body(segment.track.pose(at: min(max(0, time - segment.start), segment.track.endTime)))
            return body.joints.map { point in
                guard let projected = camera.project(point) else { return SIMD2(-1, -1) }
                return SIMD2(Double(projected.position.x) * Double(width), Double(projected.position.y) * Double(height))
            }
        }
        poses = configuration.showsPlayer ? (0..<frameCount).map { joints(at: Double($0) / fps) } : []

        // The bags' flights: from the throwing wrist at release to the planned landing point.
        let gravity = 1100 * Double(height) / 720
        var truths: [GameThrowTruth] = []
        for (plan, times) in zip(configuration.throwPlans, plannedTimes) {
            let wrist = Body18.rightWrist, elbow = Body18.rightElbow
            let atRelease = joints(at: times.release)
            let start = atRelease[wrist.rawValue]
            let landingPoint: SIMD2<Double>
            switch plan.landing {
            case .hole:
                landingPoint = holeCentre
            case .board:
                let u = Double(g.nextUniform(0.15, 0.5)), v = Double(g.nextUniform(0.35, 0.65))
                let upper = boardCorners[0] + (boardCorners[1] - boardCorners[0]) * u
                let lower = boardCorners[3] + (boardCorners[2] - boardCorners[3]) * u
                landingPoint = upper + (lower - upper) * v
            case .missed:
                let long = g.nextBool()
                landingPoint = SIMD2(long ? boardCorners[2].x + 50 * scale : boardCorners[3].x - 60 * scale,
                                     middleY + Double(g.nextUniform(-10, 20)) * scale)
            }
            let duration = plan.flightSeconds
            let velocity = SIMD2((landingPoint.x - start.x) / duration,
                                 (landingPoint.y - start.y - 0.5 * gravity * duration * duration) / duration)
            func point(_ tau: Double) -> SIMD2<Double> {
                SIMD2(start.x + velocity.x * tau, start.y + velocity.y * tau + 0.5 * gravity * tau * tau)
            }
            var arc = 0.0
            var previous = start
            for step in 1...400 {
                let next = point(duration * Double(step) / 400)
                arc += ((next - previous) * (next - previous)).sum().squareRoot()
                previous = next
            }
            // y(x) in Vision's coordinates through three points of the flight (exact: it is a parabola).
            let samples = [0.0, 0.5, 1.0].map { point(duration * $0) }.map {
                SIMD2($0.x / Double(width), 1 - $0.y / Double(height))
            }
            let coefficients = GameVideo.parabola(through: samples)
            let releaseFrame = joints(at: (times.release * fps).rounded() / fps)
            let forearm = releaseFrame[wrist.rawValue] - releaseFrame[elbow.rawValue]
            let angle = atan2(-forearm.y, forearm.x) * 180 / .pi
            truths.append(GameThrowTruth(kind: plan.kind, isRedBag: plan.isRedBag, landing: plan.landing,
                                         motionStartTime: times.start, releaseTime: times.release,
                                         landingTime: times.landing, releasePoint: start, landingPoint: landingPoint,
                                         equationCoefficients: coefficients, arcLength: arc,
                                         speed: arc * metresPerPixel / duration, releaseAngle: angle,
                                         throwingWrist: wrist))
        }
        throwTruths = truths
        let shakeFrames = Int((configuration.shakeSeconds * fps).rounded())
        firstStillFrame = shakeFrames
        let amplitude = configuration.shakeAmplitude * scale
        shakes = (0..<frameCount).map { index in
            index < shakeFrames
                ? SIMD2(Int((Double(g.nextUniform(-1, 1)) * amplitude).rounded()),
                        Int((Double(g.nextUniform(-1, 1)) * amplitude).rounded()))
                : SIMD2(0, 0)
        }
        background = GameVideo.field(width: width, height: height, board: configuration.showsBoard ? boardCorners : nil,
                                     hole: holeCentre, holeRadius: SIMD2(holeRadius, holeRadius * holeFlattening),
                                     seed: configuration.seed)
    }

    /// The coefficients (a, b, c) of y = a·x² + b·x + c through three points with distinct x.
    static func parabola(through p: [SIMD2<Double>]) -> SIMD3<Double> {
        let (x0, x1, x2) = (p[0].x, p[1].x, p[2].x)
        let d0 = p[0].y / ((x0 - x1) * (x0 - x2)), d1 = p[1].y / ((x1 - x0) * (x1 - x2)), d2 = p[2].y / ((x2 - x0) * (x2 - x1))
        return SIMD3(d0 + d1 + d2, -(d0 * (x1 + x2) + d1 * (x0 + x2) + d2 * (x0 + x1)),
                     d0 * x1 * x2 + d1 * x0 * x2 + d2 * x0 * x1)
    }
}
