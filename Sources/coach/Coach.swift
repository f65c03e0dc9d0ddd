import ArgumentParser
import CoachTensor

/// The `coach` command: train, evaluate and run the vision models behind coaching apps.
@main
struct Coach: ParsableCommand {
    /// Entry point: picks the fastest BLAS kernels for this CPU, then parses the command line.
    static func main() {
        BLASConfiguration.relaunchIfFasterKernelsAvailable()
        Self.main(nil)
    }

    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "coach",
        abstract: "Train, evaluate and run the vision models behind sports- and fitness-coaching apps.",
        discussion: """
        Coach does on Linux what Create ML does on a Mac: it trains image classifiers, \
        object detectors and body- and hand-pose action classifiers from your own data, \
        evaluates them, and writes HDF5 model files that apps run with CoachRuntime.

        Examples:
          coach inspect models/efficientnet-lite0.h5
        """,
        version: version,
        subcommands: [TrainCommand.self, EvaluateCommand.self, PredictCommand.self, InspectCommand.self,
                      ImportBackboneCommand.self, GenerateSamplesCommand.self,
                      ClassifyImageNetCommand.self]
    )
}
