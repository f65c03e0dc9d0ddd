import ArgumentParser
import Foundation
import CoachTensor
import CoachTraining

/// The `coach` command: train, evaluate and run the vision models behind coaching apps.
@main
struct Coach: ParsableCommand {
    /// Entry point: chooses OpenBLAS's kernels while this is the only thread (the choice sets an
    /// environment variable for a moment), then parses the command line and runs the command.
    static func main() {
        HeaderlessModelCheck.runChildIfAsked()
        ComputeThreads.prepareBLAS()
        HeaderlessModelCheck.install()
        do {
            var command = try parseAsRoot(nil)
            Job.keepOnlyRankZero(of: command)
            try command.run()
        } catch {
            Console.finishStandardOutput()
            let readable = FileErrorDescription.readable(error)
            if exitCode(for: readable) == .success {
                // --help and --version: their text goes to standard output, which must take it
                // (`coach --help > /dev/full` exited 0 with nothing written; issue 14).
                print(fullMessage(for: readable))
                Console.finishStandardOutput()
                Foundation.exit(0)
            }
            if let job = Communicator.current, job.size > 1 {
                // A rank that fails ends every rank at once (the others may be waiting for it in a
                // collective): MPI_Abort, after its message.
                // The message alone: not ArgumentParser's "Error:" prefix and usage, after "error: ".
                let message = Self.message(for: readable)
                if !message.isEmpty { Console.error(message) }
                job.abort(exitCode: exitCode(for: readable).rawValue)
            }
            exit(withError: readable)
        }
        Console.finishStandardOutput()
    }

    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "coach",
        abstract: "Train, evaluate and run the vision models behind sports- and fitness-coaching apps.",
        discussion: """
        Coach does on Linux what Create ML does on a Mac: it trains image classifiers, \
        object detectors, body-pose action classifiers and hand-pose classifiers from \
        your own data, evaluates them, and writes HDF5 model files that apps run with \
        the CoachRuntime library. Image models build on the pretrained EfficientNet-Lite0 \
        backbone (models/efficientnet-lite0.h5, made by `make build`).

        A session, on generated sample data:
          coach generate-samples --output samples
          coach train action-classifier --output throws.h5 \\
                --annotations samples/throws/train/annotations.csv
          coach evaluate throws.h5 --annotations samples/throws/test/annotations.csv
          coach predict throws.h5 samples/throws/test/clip-0002.csv
          coach inspect throws.h5

        Every command has examples in its own help: coach help train object-detector.
        """,
        version: version,
        subcommands: [TrainCommand.self, EvaluateCommand.self, PredictCommand.self, InspectCommand.self, ExportCommand.self,
                      ImportBackboneCommand.self, ImportPoseModelsCommand.self, ExtractPosesCommand.self, AnalyzeCommand.self, GenerateSamplesCommand.self,
                      ClassifyImageNetCommand.self]
    )
}
