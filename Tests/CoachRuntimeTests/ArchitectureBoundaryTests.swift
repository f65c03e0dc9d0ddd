import Foundation
import XCTest
import TestSupport

/// The target boundaries of ARCHITECTURE.md, checked on the sources: who may import whom,
/// and that only the CLI prints.
final class ArchitectureBoundaryTests: XCTestCase {
    let sources = SharedData.repositoryRoot.appendingPathComponent("Sources")

    /// Module imports of every Swift file of `target`.
    func imports(of target: String) throws -> [(file: String, module: String)] {
        let dir = sources.appendingPathComponent(target)
        guard let files = FileManager.default.enumerator(atPath: dir.path) else { return [] }
        var result: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                if let i = words.firstIndex(of: "import"), i + 1 < words.count,
                   words[..<i].allSatisfy({ $0.hasPrefix("@") || ["public", "internal", "private"].contains($0) }) {
                    // `import struct Module.Type` imports one declaration of Module.
                    let kinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
                    let name = kinds.contains(words[i + 1]) && i + 2 < words.count ? words[i + 2] : words[i + 1]
                    result.append((file, String(name.split(separator: ".").first ?? Substring(name))))
                }
            }
        }
        return result
    }

    func testTargetsImportOnlyWhatArchitectureAllows() throws {
        let system: Set<String> = ["Foundation", "FoundationXML", "Dispatch", "Glibc", "Darwin"]
        let allowed: [String: Set<String>] = [
            "CoachRandom": [],
            "CoachTensor": ["CBLAS", "CKernels", "CoachRandom"],
            "CoachNN": ["CoachTensor"],
            "CoachData": ["CImageCodecs", "CVideo", "CoachRandom"],
            "CoachModels": ["CoachNN", "CoachTensor", "CoachRandom", "CoachData", "CHDF5", "COpenSSL"],
            "CoachTraining": ["CoachModels", "CoachNN", "CoachTensor", "CoachRandom", "CoachData", "CMPI"],
            "CoachVision": ["CoachData", "CFourier"],
            "CoachRuntime": ["CoachModels", "CoachNN", "CoachTensor", "CoachRandom", "CoachData", "CoachVision"],
            "CoachFuzzing": ["CoachData", "CoachModels"],
            "CoachExport": ["CoachModels", "CoachNN", "CoachTensor", "CoachData"],
        ]
        var violations: [String] = []
        for (target, modules) in allowed {
            for (file, module) in try imports(of: target) where !system.contains(module) && !modules.contains(module) {
                violations.append("\(target)/\(file) imports \(module)")
            }
        }
        XCTAssertEqual(violations, [], "imports that break ARCHITECTURE.md's boundaries")
    }

    func testOnlyTheCLIPrints() throws {
        var printing: [String] = []
        for target in ["CoachRandom", "CoachTensor", "CoachNN", "CoachData", "CoachModels", "CoachTraining", "CoachRuntime", "CoachFuzzing", "CoachExport"] {
            let dir = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    // The code before any `//` comment (doc comments, whose examples may print, are skipped).
                    let code = line.split(separator: "//", omittingEmptySubsequences: false).first.map(String.init) ?? ""
                    if code.range(of: #"(^|[^.\w])(print|debugPrint|dump)\("#, options: .regularExpression) != nil
                        || code.contains("FileHandle.standardOutput") || code.contains("FileHandle.standardError") {
                        printing.append("\(target)/\(file):\(n + 1)")
                    }
                }
            }
        }
        XCTAssertEqual(printing, [], "libraries return values and emit events; only coach prints")
    }
}
