import CoachData
import Foundation
import TestSupport
import XCTest

/// `mpirun -np N coach train …` (issue 18) with local ranks: the ranks share the backbone work
/// and the job writes a single process's model bytes; a rank that is killed ends the job at once
/// with a message naming it, and `--resume` finishes the job.
final class MPIJobTests: XCTestCase {
    /// `mpirun`, or a loud skip (`make deps` installs Open MPI).
    static func mpirun(file: String = #fileID, function: String = #function) throws -> String {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(folder)/mpirun"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw skipTest("SKIPPED: no mpirun on PATH (Debian: openmpi-bin; `make deps` installs it)", file: file, function: function)
    }

    /// Open MPI refuses root unless told (CI and containers run as root); `--oversubscribe` lets a
    /// 2-core machine run more ranks than cores.
    static let environment = ["OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"]

    /// `mpirun -np ranks coach arguments…`, waited for.
    static func runJob(ranks: Int, _ arguments: [String], extraEnvironment: [String: String] = [:]) throws -> CoachExecutable.Result {
        let process = try jobProcess(ranks: ranks, arguments, extraEnvironment: extraEnvironment)
        return try CoachExecutable.finish(process)
    }

    static func jobProcess(ranks: Int, _ arguments: [String], extraEnvironment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try mpirun())
        process.arguments = ["-np", "\(ranks)", "--oversubscribe", try CoachExecutable.location().path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging(extraEnvironment) { $1 }) { $1 }
        return process
    }

    /// Runs `arguments` in one process and on two ranks: both succeed and print the same, which contains `expected`.
    static func assertSameOnTwoRanks(_ arguments: [String], printing expected: String, file: StaticString = #filePath,
                                     line: UInt = #line) throws {
        let plain = try CoachExecutable.run(arguments)
        let shared = try runJob(ranks: 2, arguments)
        XCTAssertEqual(plain.exitCode, 0, plain.standardError, file: file, line: line)
        XCTAssertEqual(shared.exitCode, 0, shared.standardError, file: file, line: line)
        XCTAssertEqual(shared.standardOutput, plain.standardOutput, file: file, line: line)
        XCTAssertTrue(plain.standardOutput.contains(expected), plain.standardOutput, file: file, line: line)
    }

    /// The first `count` photos of a Create ML annotation file, as a file of their own in `folder`
    /// (the images named by absolute paths, so they are read where they are). The jobs here check
    /// how ranks share the work and what they write, which a few dozen photos show as well as all.
    static func firstPhotos(_ count: Int, of annotations: URL, in folder: URL) throws -> URL {
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: annotations)) as? [[String: Any]])
        let kept = entries.prefix(count).map { entry -> [String: Any] in
            var entry = entry
            if let image = entry["image"] as? String, !image.hasPrefix("/") {
                entry["image"] = annotations.deletingLastPathComponent().appendingPathComponent(image).path
            }
            return entry
        }
        XCTAssertEqual(kept.count, count)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("annotations.json")
        try JSONSerialization.data(withJSONObject: kept).write(to: url)
        return url
    }

    /// Cornhole crops (real photos; FORMATS §1 folders) of the first 40 photos in `directory`.
    static func crops(in directory: URL) throws -> URL {
        let annotations = try firstPhotos(40, of: SharedData.require("data/cornhole/images/annotations.json"),
                                          in: directory.appendingPathExtension("annotations"))
        var exporter = DetectionCropExporter()
        exporter.maximumCropsPerLabelPerPhoto = 1
        exporter.backgroundCropsPerPhoto = 1
        _ = try exporter.export(annotations: annotations, to: directory)
        return directory
    }

    /// A model file at `folder/name/model.h5` (the file name is recorded in the model, so every run
    /// writes one of the same name in a folder of its own).
    static func output(_ folder: URL, _ name: String) throws -> URL {
        let run = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        return run.appendingPathComponent("model.h5")
    }

    func testImageClassifierOnTwoRanksWritesTheSingleProcessBytes() throws {
        _ = try Self.mpirun()
        let folder = try temporaryDirectory(self)
        let data = try Self.crops(in: folder.appendingPathComponent("crops"))
        // A file no decoder reads, in the second rank's share: skipped and named as a single process does.
        let broken = data.appendingPathComponent("train/red_bag/zzzz-broken.jpg")
        try Data("not a JPEG".utf8).write(to: broken)
        func arguments(_ output: URL) -> [String] {
            ["train", "image-classifier", "--data", data.path, "--output", output.path, "--no-feature-cache", "--seed", "2"]
        }
        let plainURL = try Self.output(folder, "plain")
        let plain = try CoachExecutable.run(arguments(plainURL))
        XCTAssertEqual(plain.exitCode, 0, plain.standardError)
        let expected = try Data(contentsOf: plainURL)
        for ranks in [1, 2] {
            let url = try Self.output(folder, "ranks-\(ranks)")
            let job = try Self.runJob(ranks: ranks, arguments(url))
            XCTAssertEqual(job.exitCode, 0, job.standardError)
            XCTAssertEqual(try Data(contentsOf: url), expected, "mpirun -np \(ranks) wrote other bytes than a plain run")
            // Rank 0 alone speaks: one summary, the same warning for the unreadable file, the same test table.
            XCTAssertEqual(job.standardOutput.components(separatedBy: "wrote ").count, 2, job.standardOutput)
            XCTAssertEqual(job.standardError.components(separatedBy: "zzzz-broken.jpg").count,
                           plain.standardError.components(separatedBy: "zzzz-broken.jpg").count, job.standardError)
            XCTAssertTrue(job.standardError.contains("zzzz-broken.jpg"), job.standardError)
            func table(_ text: String) -> Substring? { text.range(of: "test data:").map { text[$0.lowerBound...] } }
            XCTAssertEqual(table(job.standardOutput), table(plain.standardOutput))
            XCTAssertNotNil(table(plain.standardOutput))
        }

        // evaluate over ranks: the features of the test photos are shared out; the same table.
        try Self.assertSameOnTwoRanks(["evaluate", plainURL.path, "--data", data.path, "--json"], printing: "confusionMatrix")

        // predict over ranks: each predicts its share; rank 0 prints them in input order, the bad
        // file's error among them, and the job fails as one process does.
        let images = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("test/board").path).sorted()
            .prefix(5).map { data.appendingPathComponent("test/board/\($0)").path } + [broken.path]
        for json in [false, true] {
            let arguments = ["predict", plainURL.path] + images + (json ? ["--json"] : [])
            let one = try CoachExecutable.run(arguments)
            let job = try Self.runJob(ranks: 3, arguments)
            XCTAssertEqual(one.exitCode, 1, one.standardError)
            XCTAssertNotEqual(job.exitCode, 0, job.standardError)
            XCTAssertEqual(job.standardOutput, one.standardOutput, "predict --json \(json)")
            XCTAssertEqual(job.standardError.components(separatedBy: "zzzz-broken.jpg").count, 2, job.standardError)
        }
    }

    func testMoreRanksThanFilesEndsAsASingleProcessDoes() throws {
        _ = try Self.mpirun()
        let folder = try temporaryDirectory(self)
        let data = folder.appendingPathComponent("two")
        for (label, shade) in [("dark", 40), ("light", 220)] {
            let directory = data.appendingPathComponent(label)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try RGBImage(width: 32, height: 32, color: RGBColor(red: UInt8(shade), green: UInt8(shade), blue: UInt8(shade)))
                .writePNG(to: directory.appendingPathComponent("only.png"))
        }
        func arguments(_ output: URL) -> [String] {
            ["train", "image-classifier", "--data", data.path, "--output", output.path, "--no-feature-cache"]
        }
        let plainURL = try Self.output(folder, "plain")
        let plain = try CoachExecutable.run(arguments(plainURL))
        let jobURL = try Self.output(folder, "job")
        let job = try Self.runJob(ranks: 3, arguments(jobURL))
        // Whatever a single process makes of two photos, three ranks make the same, and end.
        if plain.exitCode == 0 {
            XCTAssertEqual(job.exitCode, 0, job.standardError)
            XCTAssertEqual(try Data(contentsOf: jobURL), try Data(contentsOf: plainURL))
        } else {
            XCTAssertNotEqual(job.exitCode, 0)
            let message = plain.standardError.split(separator: "\n").last { $0.hasPrefix("error:") }
            XCTAssertNotNil(message, plain.standardError)
            XCTAssertTrue(job.standardError.contains(String(message ?? "")), job.standardError)
        }
    }

    func testAFileMissingOnOneHostIsAClearErrorOnEveryRank() throws {
        let mpirun = try Self.mpirun()
        // Rank 1 runs in a mount namespace of its own in which one photo is missing, as on a
        // second host whose copy of the data lacks it.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "--propagation", "private", "true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { throw skipTest("SKIPPED: no /usr/bin/unshare (util-linux)") }
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else { throw skipTest("SKIPPED: unshare -m is not permitted here (needs root)") }

        let folder = try temporaryDirectory(self)
        let data = folder.appendingPathComponent("photos")
        for (label, shade) in [("dark", 40), ("light", 220)] {
            let directory = data.appendingPathComponent(label)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for index in 0..<6 {
                var image = RGBImage(width: 32, height: 32, color: RGBColor(red: UInt8(shade), green: UInt8(shade), blue: UInt8(shade)))
                image[index, index] = .white
                try image.writePNG(to: directory.appendingPathComponent("photo-\(index).png"))
            }
        }
        // Host B's copy of light/: one photo short.
        let hostB = folder.appendingPathComponent("light-on-host-b")
        try FileManager.default.copyItem(at: data.appendingPathComponent("light"), to: hostB)
        try FileManager.default.removeItem(at: hostB.appendingPathComponent("photo-3.png"))
        let output = try Self.output(folder, "job")
        let arguments = ["train", "image-classifier", "--data", data.path, "--output", output.path, "--no-feature-cache"]
        let coach = try CoachExecutable.location().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: mpirun)
        process.arguments = ["--oversubscribe", "-np", "1", coach] + arguments + [":", "-np", "1", "/usr/bin/unshare", "-m",
            "--propagation", "private", "/bin/sh", "-c", "mount --bind \"$1\" \"$2\" && shift 2 && exec \"$@\"", "sh",
            hostB.path, data.appendingPathComponent("light").path, coach] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(Self.environment) { $1 }
        let started = Date()
        let job = try CoachExecutable.finish(process)
        XCTAssertNotEqual(job.exitCode, 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60)
        XCTAssertTrue(job.standardError.contains("the ranks do not see the same image files"), job.standardError)
        XCTAssertTrue(job.standardError.contains("not on rank 1: light/photo-3.png"), job.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }

    func testOtherCommandsRunOnceOnRankZero() throws {
        _ = try Self.mpirun()
        let backbone = SharedData.repositoryRoot.appendingPathComponent("models/efficientnet-lite0.h5")
        guard FileManager.default.fileExists(atPath: backbone.path) else {
            throw skipTest("SKIPPED: no imported backbone at \(backbone.path); run make build")
        }
        let plain = try CoachExecutable.run(["inspect", backbone.path])
        XCTAssertEqual(plain.exitCode, 0, plain.standardError)
        let job = try Self.runJob(ranks: 2, ["inspect", backbone.path])
        XCTAssertEqual(job.exitCode, 0, job.standardError)
        XCTAssertEqual(job.standardOutput, plain.standardOutput, "printed once, by rank 0")
        XCTAssertTrue(job.standardError.contains("coach inspect runs on one process"), job.standardError)
    }

    /// The pid of rank `rank` of the job whose ranks carry `marker` in their environment.
    static func rankPID(_ rank: Int, marker: String) -> pid_t? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = pid_t(entry), let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ") else { continue }
            let variables = Set(environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
            if variables.contains("COACH_TEST_JOB=\(marker)") && variables.contains("OMPI_COMM_WORLD_RANK=\(rank)") { return pid }
        }
        return nil
    }

    func testAKilledRankEndsTheJobAndResumeFinishesIt() throws {
        _ = try Self.mpirun()
        let folder = try temporaryDirectory(self)
        // Four trainings: 24 photos and 30 iterations keep them short (about 15 s each on one core)
        // and still leave many checkpoints for the kill to land between.
        let annotations = try Self.firstPhotos(24, of: SharedData.repositoryRoot.appendingPathComponent("datasets/cornhole/train/annotations.json"),
                                               in: folder.appendingPathComponent("photos"))
        func arguments(_ output: URL, seed: Int = 1) -> [String] {
            ["train", "object-detector", "--annotations", annotations.path, "--output", output.path, "--views-per-image", "2",
             "--max-iterations", "30", "--seed", "\(seed)"]
        }
        let reference = try Self.output(folder, "reference")
        let uninterrupted = try CoachExecutable.run(arguments(reference))
        XCTAssertEqual(uninterrupted.exitCode, 0, uninterrupted.standardError)
        let expected = try Data(contentsOf: reference)

        let output = try Self.output(folder, "killed")
        XCTAssertEqual(try CoachExecutable.run(arguments(output, seed: 5)).exitCode, 0)
        let previous = try Data(contentsOf: output)
        let checkpoint = output.deletingPathExtension().appendingPathExtension("checkpoint.h5")
        XCTAssertFalse(FileManager.default.fileExists(atPath: checkpoint.path))

        // Rank 1 is killed once rank 0 has written a checkpoint of the head's training.
        let marker = UUID().uuidString
        let process = try Self.jobProcess(ranks: 2, arguments(output) + ["--overwrite"], extraEnvironment: ["COACH_TEST_JOB": marker])
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        final class Box: @unchecked Sendable { var data = Data() }
        let box = Box(), reading = DispatchGroup()
        reading.enter()
        DispatchQueue.global().async { box.data = errors.fileHandleForReading.readDataToEndOfFile(); reading.leave() }
        let deadline = Date().addingTimeInterval(300)
        while !FileManager.default.fileExists(atPath: checkpoint.path) && process.isRunning && Date() < deadline {
            usleep(50_000)
        }
        let victim = try XCTUnwrap(Self.rankPID(1, marker: marker), "rank 1 not found")
        let killed = Date()
        kill(victim, SIGKILL)
        process.waitUntilExit()
        reading.wait()
        let ended = Date().timeIntervalSince(killed)
        let message = String(decoding: box.data, as: UTF8.self)
        XCTAssertNotEqual(process.terminationStatus, 0)
        XCTAssertLessThan(ended, 30, "the job went on for \(ended) s after a rank died")
        XCTAssertTrue(message.contains("rank 1"), message)
        XCTAssertTrue(message.contains(ProcessInfo.processInfo.hostName) || message.contains("node"), message)
        XCTAssertEqual(try Data(contentsOf: output), previous, "the previous model was touched")
        XCTAssertTrue(FileManager.default.fileExists(atPath: checkpoint.path))

        // --resume, on another number of ranks, ends with an uninterrupted run's bytes.
        let resumed = try Self.runJob(ranks: 1, arguments(output) + ["--overwrite", "--resume"])
        XCTAssertEqual(resumed.exitCode, 0, resumed.standardError)
        XCTAssertTrue(resumed.standardError.contains("resuming from"), resumed.standardError)
        XCTAssertEqual(try Data(contentsOf: output), expected)

        // evaluate over ranks: each computes the maps of its share of the photos; the same metrics.
        let test = SharedData.repositoryRoot.appendingPathComponent("datasets/cornhole/test/annotations.json")
        try Self.assertSameOnTwoRanks(["evaluate", output.path, "--annotations", test.path, "--json"],
                                      printing: "meanAveragePrecision50")
    }
}
