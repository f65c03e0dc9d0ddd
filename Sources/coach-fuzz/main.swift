import CoachFuzzing
import Foundation

// `coach-fuzz TARGET [FILE|FOLDER…]` replays inputs through a parser (what the corpus tests
// do); built by `make fuzz` with `-sanitize=fuzzer,address -DCOACH_FUZZ`, `coach-fuzz TARGET
// [libFuzzer options] CORPUS…` fuzzes it with libFuzzer.

let arguments = CommandLine.arguments
guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
    var lines = ["usage: coach-fuzz TARGET [FILE|FOLDER…]   (built by make fuzz: coach-fuzz TARGET [libFuzzer options] CORPUS…)", "targets:"]
    for target in FuzzTarget.allCases { lines.append("  \(target.rawValue.padding(toLength: 24, withPad: " ", startingAt: 0)) \(target.summary)") }
    FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    exit(arguments.count >= 2 && ["-h", "--help"].contains(arguments[1]) ? 0 : 64)
}
let runner = try FuzzRunner(target: target)

#if COACH_FUZZ
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

nonisolated(unsafe) var fuzzRunner: FuzzRunner? = runner
// libFuzzer's own options and corpus folders: everything after the target's name.
var driverArguments = [arguments[0]] + arguments.dropFirst(2)
var cArguments: [UnsafeMutablePointer<CChar>?] = driverArguments.map { strdup($0) } + [nil]
var argc = CInt(driverArguments.count)
let status = cArguments.withUnsafeMutableBufferPointer { buffer -> CInt in
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
    return runFuzzerDriver(&argc, &argv) { data, size in
        let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
        fuzzRunner?.run(bytes)
        return 0
    }
}
exit(status)
#else
var files: [URL] = []
for path in arguments.dropFirst(2) {
    let url = URL(fileURLWithPath: path)
    if let names = try? FileManager.default.contentsOfDirectory(atPath: path) {
        files += names.sorted().map { url.appendingPathComponent($0) }
    } else {
        files.append(url)
    }
}
var accepted = 0
for file in files {
    guard let data = FileManager.default.contents(atPath: file.path) else { continue }
    if runner.run([UInt8](data)) { accepted += 1 }
}
print("\(target.rawValue): \(files.count) inputs, \(accepted) read, \(files.count - accepted) refused with an error, no crash")
#endif
