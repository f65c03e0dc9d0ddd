import ArgumentParser
import CoachData
import CoachModels
import Foundation

/// The options of every pose command that accepts videos and photos where pose clips go.
struct PoseMediaOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Videos and photos given instead of pose clips are read with the pose models in this folder (`make build` imports them); their poses are cached in ~/.cache/coach/poses (COACH_POSE_CACHE).", valueName: "folder"))
    var poseModels: String = "models/pose"

    @Flag(help: "Videos and photos are mirrored (front-camera selfies): swaps hand chirality.")
    var mirrored = false

    /// `options` able to read media as `joints` clips when the pose models are there (otherwise
    /// media stay an error that says how to get the models).
    func attach(to options: PoseReadingOptions, joints: JointSet) throws -> PoseReadingOptions {
        let folder = URL(fileURLWithPath: poseModels)
        guard joints.kind != .custom, MediaPoses.modelsExist(in: folder) else { return options }
        var options = options
        options.media = try MediaPoses.reader(joints: joints.kind == .hand21 ? .hand21 : .body18, modelFolder: folder,
                                              mirrored: mirrored, frameRate: options.frameRate,
                                              note: { Console.note($0) })
        return options
    }
}
