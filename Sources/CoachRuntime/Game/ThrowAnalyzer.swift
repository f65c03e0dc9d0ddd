import CoachData
import CoachModels
import CoachVision
import Foundation

/// Runs the Action & Vision game on a video, frame by frame: finds the board, waits for a stable
/// scene, measures the board, waits for a player, then follows every bag's flight and, when a
/// throw is complete, types it with the action classifier and measures and scores it.
///
/// ```swift
/// let game = ThrowAnalyzer(board: try ObjectDetector(contentsOf: boards), poses: try BodyPoseDetector(modelFolder: poseModels),
///                          classifier: try ActionClassifier(contentsOf: throwsModel).model)
/// for frame in frames { for event in game.process(frame.image, at: frame.time) { … } }
/// let summary = game.finish()
/// ```
public final class ThrowAnalyzer {
    /// The game's states, in the order the app goes through them.
    public enum State: String, Codable, Sendable {
        /// Looking for the board with the detector.
        case findingBoard
        /// Waiting for the camera to be still.
        case waitingForStableScene
        /// Waiting for a person in the frame.
        case waitingForPlayer
        /// Following throws.
        case playing
    }

    /// What happened in a frame.
    public enum Event: Equatable, Sendable {
        /// The detector found the board (box in pixels) at this time.
        case boardFound(PixelBox, time: Double)
        /// The scene became stable and the board was measured.
        case sceneStable(BoardGeometry, time: Double)
        /// A player appeared.
        case playerFound(time: Double)
        /// A throw was complete.
        case throwCompleted(ThrowRecord)
    }

    /// Why a game could not be played (what the app would show the user).
    public enum Problem: Equatable, Sendable, LocalizedError {
        /// No frames at all.
        case noFrames
        /// The detector found no board in the first seconds.
        case noBoard(seconds: Double)
        /// The camera never stopped moving.
        case neverStable(meanShift: Double)
        /// No person was ever seen.
        case noPlayer

        /// A sentence for the user.
        public var errorDescription: String? {
            switch self {
            case .noFrames: return "the video has no frames"
            case let .noBoard(seconds):
                return "no board found in the first \(String(format: "%g", seconds)) s: film the board whole and in focus, or pass its box with --board-box"
            case let .neverStable(shift):
                return "the scene never became stable (the camera still moved \(String(format: "%.1f", shift)) px a frame at the end): put the phone on a stand"
            case .noPlayer: return "no player: no person was seen once the scene was stable"
            }
        }
    }

    /// The game's settings (the app's constants by default).
    public struct Configuration: Equatable, Sendable {
        /// Seconds from the start in which the board must be found.
        public var boardSearchSeconds: Double = 5
        /// Seconds between detector runs while looking for the board.
        public var boardSearchInterval: Double = 0.25
        /// Shifts averaged to judge stability (the app: 15).
        public var stabilityHistory: Int = 15
        /// Stable below this mean shift in pixels (the app: 10).
        public var stabilityThreshold: Double = 10
        /// A throw is complete once its bag has not been seen for more than this many frames (the app: 20).
        public var completionFrames: Int = 20
        /// Trajectories below this confidence are ignored (the app: 0.5).
        public var minimumTrajectoryConfidence: Double = 0.5
        /// Points a trajectory needs before it is reported (the app: 10).
        public var trajectoryLength: Int = 10
        /// The scoring.
        public var rules = GameRules()
        /// Seconds after the release in which the classifier's windows may end.
        public var typeWindowSeconds: Double = 1
        /// The defaults.
        public init() {}
    }

    /// The settings.
    public let configuration: Configuration
    /// The current state.
    public private(set) var state: State = .findingBoard
    /// The board as measured once the scene was stable.
    public private(set) var board: BoardGeometry?
    /// The throws so far, in order.
    public internal(set) var throwRecords: [ThrowRecord] = []
    /// The game's total points.
    public var total: Int { throwRecords.last?.runningTotal ?? 0 }
    /// When the scene became stable, when the player appeared.
    public internal(set) var stableTime: Double?, playerTime: Double?
    /// Frames processed.
    public private(set) var frameCount = 0

    let locator: BoardLocator
    let poseSource: BodyPoseSource?
    let classifier: ActionClassifierModel?
    let stability: SceneStabilityMonitor
    var trajectories: TrajectoryDetector?
    var boardBox: PixelBox?
    var lastBoardSearch = -Double.infinity
    var reference: RGBImage?
    var poses: [PoseFrame] = []
    var flights: [UUID: TrackedFlight] = [:]
    var lastShift = 0.0
    /// The size of the frames processed so far (nil before the first).
    public internal(set) var lastFrameSize: (width: Int, height: Int)?

    /// A game on frames from one fixed camera: `board` finds the board, `poses` the player (nil:
    /// no poses, so no types or release angles), `classifier` types throws (nil: untyped).
    public init(board: BoardLocator, poses: BodyPoseSource?, classifier: ActionClassifierModel?,
                configuration: Configuration = Configuration()) {
        self.locator = board
        self.poseSource = poses
        self.classifier = classifier
        self.configuration = configuration
        stability = SceneStabilityMonitor(historyLength: configuration.stabilityHistory,
                                          threshold: configuration.stabilityThreshold)
    }

    /// Analyses the next frame (taken at `time` seconds, increasing) and returns what happened.
    public func process(_ frame: RGBImage, at time: Double) -> [Event] {
        frameCount += 1
        var events: [Event] = []
        if let size = lastFrameSize, size != (frame.width, frame.height) {
            // A new frame size is a new camera: start over.
            state = .findingBoard
            boardBox = nil
            board = nil
            trajectories = nil
            flights.removeAll()
            stability.reset()
        }
        lastFrameSize = (frame.width, frame.height)
        stability.update(with: frame)
        lastShift = stability.meanShiftLength ?? 0
        switch state {
        case .findingBoard:
            if time - lastBoardSearch >= configuration.boardSearchInterval, time <= configuration.boardSearchSeconds {
                lastBoardSearch = time
                if let found = locator.locateBoard(in: frame) {
                    boardBox = found.box
                    state = .waitingForStableScene
                    events.append(.boardFound(found.box, time: time))
                }
            }
            if state == .waitingForStableScene { events += settle(frame, at: time) }
        case .waitingForStableScene:
            events += settle(frame, at: time)
        case .waitingForPlayer:
            if let pose = observePose(frame, at: time), !pose.isEmpty {
                playerTime = time
                state = .playing
                events.append(.playerFound(time: time))
            }
            events += follow(frame, at: time)
        case .playing:
            _ = observePose(frame, at: time)
            events += follow(frame, at: time)
        }
        return events
    }

    /// Ends the video: completes a throw still in flight and returns it; then `problem` says what,
    /// if anything, kept the game from being played.
    public func finish() -> [Event] {
        guard let frame = lastFrame else { return [] }
        return completeFlights(frame, at: .infinity)
    }

    /// What kept the game from being played, once the video has ended (nil: it was played).
    public var problem: Problem? {
        if frameCount == 0 { return .noFrames }
        switch state {
        case .findingBoard: return .noBoard(seconds: configuration.boardSearchSeconds)
        case .waitingForStableScene: return .neverStable(meanShift: lastShift)
        case .waitingForPlayer: return poseSource == nil ? nil : .noPlayer
        case .playing: return nil
        }
    }

    var lastFrame: RGBImage?

    /// The paths of the bags in flight now (pixels), for drawing.
    public var activePaths: [[SIMD2<Double>]] {
        flights.values.sorted { ($0.path.times.first ?? 0) < ($1.path.times.first ?? 0) }.map(\.path.points)
    }

    /// The player's latest pose (body18, normalised, origin top-left), for drawing.
    public var currentPose: [Keypoint?]? { poses.last?.keypoints }

    /// In `waitingForStableScene`: once stable, re-locates the board on this still frame,
    /// measures it and starts following.
    func settle(_ frame: RGBImage, at time: Double) -> [Event] {
        guard stability.isStable, let box = locator.locateBoard(in: frame)?.box ?? boardBox else { return [] }
        boardBox = box
        let geometry = BoardGeometryAnalyzer().analyze(frame, boardBox: box)
        board = geometry
        stableTime = time
        reference = frame
        let detector = TrajectoryDetector()
        detector.trajectoryLength = configuration.trajectoryLength
        trajectories = detector
        state = poseSource == nil ? .playing : .waitingForPlayer
        return [.sceneStable(geometry, time: time)]
    }

    /// The player's pose in `frame`, kept for the classifier (the last few seconds).
    func observePose(_ frame: RGBImage, at time: Double) -> [Keypoint?]? {
        guard let poseSource, let keypoints = poseSource.bodyPose(in: frame, at: time) else { return nil }
        let body = Array(keypoints.prefix(JointSet.body18.count)) + [Keypoint?](repeating: nil, count: max(0, 18 - keypoints.count))
        poses.append(PoseFrame(time: time, keypoints: body))
        if let first = poses.first, time - first.time > 8 { poses.removeFirst(poses.count / 4) }
        return body
    }
}
