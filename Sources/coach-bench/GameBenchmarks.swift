import CoachData
import CoachModels
import CoachRuntime
import CoachSamples
import Foundation

/// The game's speed (issue 12, `--only game`): a rendered 720p game, frames decoded into memory
/// first, then each part on one thread — scene stability, trajectory detection, the whole game
/// with poses recorded alongside the video (everything but pose estimation) — and the whole
/// game with Coach's body pose detector (end to end but the video decoding).
enum GameBenchmarks {
    static func run(poseModels: String) throws {
        ComputeThreads.set(1)
        let video = GameVideo()
        let frames = video.frames()
        let times = (0..<frames.count).map(video.time(ofFrame:))
        print("== game (coach analyze's pipeline): a rendered \(frames[0].width)×\(frames[0].height) game, \(frames.count) frames, one thread")

        func rate(_ body: () -> Void) -> Double {
            let start = Timing.now()
            body()
            return Double(frames.count) / (Timing.now() - start)
        }
        let stability = rate {
            let monitor = SceneStabilityMonitor()
            for frame in frames { monitor.update(with: frame) }
        }
        let trajectories = rate {
            let detector = TrajectoryDetector()
            for (frame, time) in zip(frames, times) { _ = detector.process(frame, at: time) }
        }
        let box = video.boardBox
        let locator = FixedBoardLocator(box: PixelBox(x: box.x, y: box.y, width: box.width, height: box.height))
        var found = 0
        let recorded = rate {
            let game = ThrowAnalyzer(board: locator, poses: RecordedBodyPoses(frames: video.poseSequence(source: URL(fileURLWithPath: "game")).frames),
                                     classifier: nil)
            for (frame, time) in zip(frames, times) { _ = game.process(frame, at: time) }
            _ = game.finish()
            found = game.throwRecords.count
        }
        print("scene stability \(format(stability, 0)) frames/s · trajectory detection \(format(trajectories, 0)) frames/s · "
              + "the whole game without pose estimation \(format(recorded, 0)) frames/s (\(found) of \(video.throwTruths.count) throws found)")
        guard let detector = try? BodyPoseDetector(modelFolder: URL(fileURLWithPath: poseModels)) else {
            print("the whole game with pose estimation: SKIPPED, no pose models in \(poseModels) (make build imports them)")
            return
        }
        var seen = 0
        let withPoses = rate {
            let game = ThrowAnalyzer(board: locator, poses: detector, classifier: nil)
            for (frame, time) in zip(frames, times) { _ = game.process(frame, at: time) }
            _ = game.finish()
            seen = game.throwRecords.count
        }
        print("the whole game with Coach's body pose detector (BlazePose on every frame): \(format(withPoses, 1)) frames/s "
              + "(\(seen) of \(video.throwTruths.count) throws found)")
    }
}
