import ArgumentParser

/// `coach train <task> …`: one subcommand per model type.
struct TrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Train a model from your data.",
        discussion: """
        Every trainer prints a dataset summary first, then progress (items/s, ETA) and
        per-iteration loss and accuracy, then writes an HDF5 model file atomically.
        Every random choice flows from --seed: the same seed and data give the same
        model.
        """,
        subcommands: [TrainImageClassifierCommand.self, TrainObjectDetectorCommand.self, TrainActionClassifierCommand.self,
                      TrainHandPoseClassifierCommand.self, TrainHandActionClassifierCommand.self])
}
