import Foundation

/// Issue 18's measurements, with the `coach` executable as a user runs it: feature extraction on
/// two ranks of one thread each (`mpirun -np 2`) against one process of one thread on the same
/// photos, the whole training's speed-up, and the peak memory (max RSS) of `train
/// image-classifier` on 1k, 4k and 16k generated photos.
enum ScaleBenchmarks {
    /// How a child process ended, with its own peak memory (wait4's rusage) and wall time.
    struct Measured {
        var status: Int32
        var seconds: Double
        var maxRSSMegabytes: Double
        var standardError: String
    }

    /// Runs `arguments[0]` with `arguments[1...]`, stdout discarded, stderr kept.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Measured {
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("coach-scale-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: errorFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let start = Date()
        let code = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, &envp)
        guard code == 0 else { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: arguments[0]]) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        return Measured(status: status, seconds: Date().timeIntervalSince(start), maxRSSMegabytes: Double(usage.ru_maxrss) / 1024,
                        standardError: (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")
    }

    /// The rate of the last "extracting features: N/N in Xs · R/s" line.
    static func extractionRate(_ log: String) -> Double? {
        guard let line = log.split(separator: "\n").last(where: { $0.hasPrefix("extracting features:") && $0.contains(" in ") }),
              let rate = line.split(separator: "·").last?.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "/s", with: "")
        else { return nil }
        return Double(rate)
    }

    /// A FORMATS §1 folder of `count` generated sports-gear photos (hard links to `coach
    /// generate-samples` output, one seed per 160 training photos), made once under `cache`.
    static func photos(_ count: Int, coach: String, cache: URL) throws -> URL {
        let root = cache.appendingPathComponent("photos-\(count)")
        if FileManager.default.fileExists(atPath: root.appendingPathComponent(".complete").path) { return root }
        try? FileManager.default.removeItem(at: root)
        var made = 0, seed = 1
        while made < count {
            let generated = cache.appendingPathComponent("seed-\(seed)")
            let train = generated.appendingPathComponent("sports-gear/train")
            if !FileManager.default.fileExists(atPath: train.path) {
                let result = try run([coach, "generate-samples", "--only", "sports-gear", "--seed", "\(seed)", "--output", generated.path])
                guard result.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: result.standardError]) }
            }
            for label in try FileManager.default.contentsOfDirectory(atPath: train.path).sorted() where !label.hasPrefix(".") {
                let folder = root.appendingPathComponent(label)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for file in try FileManager.default.contentsOfDirectory(atPath: train.appendingPathComponent(label).path).sorted()
                where made < count {
                    try FileManager.default.linkItem(at: train.appendingPathComponent(label).appendingPathComponent(file),
                                                     to: folder.appendingPathComponent("s\(seed)-\(file)"))
                    made += 1
                }
            }
            seed += 1
        }
        FileManager.default.createFile(atPath: root.appendingPathComponent(".complete").path, contents: Data())
        return root
    }

    static func run(backbonePath: String, sizes: [Int]) throws {
        print("== scale (issue 18): mpirun -np 2 against one process; peak memory against photos")
        let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let coach = here.appendingPathComponent("coach").path
        guard let mpirun = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map({ "\($0)/mpirun" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("SKIPPED scale: no mpirun on PATH (Debian openmpi-bin; make deps installs it)")
            return
        }
        let cache = URL(fileURLWithPath: ".cache/bench-photos")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("coach-scale-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let root = ["OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"]
        func train(_ data: URL, _ name: String) -> [String] {
            ["train", "image-classifier", "--data", data.path, "--output", work.appendingPathComponent("\(name).h5").path,
             "--backbone", backbonePath, "--no-feature-cache", "--seed", "0", "--name", "scale"]
        }

        // Speed: 1,000 photos, one thread per process either way.
        let speedPhotos = try photos(1000, coach: coach, cache: cache)
        let single = try run([coach] + train(speedPhotos, "one"), environment: ["COACH_THREADS": "1"])
        let job = try run([mpirun, "-np", "2", "--bind-to", "core", coach] + train(speedPhotos, "two"), environment: root)
        guard single.status == 0, job.status == 0 else {
            print("scale: a run failed:\n\(single.standardError)\n\(job.standardError)")
            return
        }
        let same = FileManager.default.contentsEqual(atPath: work.appendingPathComponent("one.h5").path,
                                                     andPath: work.appendingPathComponent("two.h5").path)
        let singleRate = extractionRate(single.standardError) ?? .nan, jobRate = extractionRate(job.standardError) ?? .nan
        print(String(format: "feature extraction, 1,000 photos: 1 process × 1 thread %.1f photos/s, 2 ranks × 1 thread %.1f photos/s",
                     singleRate, jobRate))
        print(String(format: "whole training: 1 process × 1 thread %.1f s, mpirun -np 2 %.1f s (same model bytes: %@)",
                     single.seconds, job.seconds, same ? "yes" : "NO"))
        print(String(format: "mpirun-np2-vs-one-process extraction: %.2f", jobRate / singleRate))
        print(String(format: "mpirun-np2-vs-one-process training: %.2f", single.seconds / job.seconds))

        // Memory: one process (default threads), growing photo counts.
        var previous: (photos: Int, megabytes: Double)?
        for size in sizes {
            let data = try photos(size, coach: coach, cache: cache)
            let measured = try run([coach] + train(data, "memory-\(size)"))
            guard measured.status == 0 else { print("scale: \(size) photos failed:\n\(measured.standardError)"); continue }
            var line = String(format: "train image-classifier, %6d photos: peak memory %7.1f MB, %.1f s", size, measured.maxRSSMegabytes,
                              measured.seconds)
            if let previous {
                let perPhoto = (measured.maxRSSMegabytes - previous.megabytes) * 1_048_576 / Double(size - previous.photos)
                line += String(format: "; %.1f KB more per added photo (its features: %.1f KB; its decoded 224² pixels: %.0f KB)",
                               perPhoto / 1024, 1280.0 * 4 / 1024, 224.0 * 224 * 3 * 4 / 1024)
            }
            print(line)
            previous = (size, measured.maxRSSMegabytes)
        }
    }

    /// Data-parallel pose classifiers: `train action-classifier` on NATOPS and `train
    /// hand-pose-classifier` on the hand poses, as one process on one and on two threads and as
    /// two ranks of one thread (`mpirun -np 2`).
    static func runPoseTraining(sharedPath: String) throws {
        print("== scale, pose classifiers (issue 18): mpirun -np 2 (minibatches split, gradients summed) against one process")
        let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let coach = here.appendingPathComponent("coach").path
        guard let mpirun = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map({ "\($0)/mpirun" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("SKIPPED scale poses: no mpirun on PATH (Debian openmpi-bin; make deps installs it)")
            return
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("coach-scale-poses-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let root = ["OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"]
        let sets: [(name: String, command: String, data: String, extra: [String])] = [
            ("NATOPS (180 clips)", "action-classifier", sharedPath + "/data/natops/train", []),
            ("hand poses (4,450)", "hand-pose-classifier", sharedPath + "/data/hand-gestures/hand-poses.csv", ["--validation-fraction", "0.1"]),
        ]
        for set in sets {
            guard FileManager.default.fileExists(atPath: set.data) else {
                print("SKIPPED \(set.name): \(set.data) is missing (set COACH_SHARED or --shared)")
                continue
            }
            func arguments(_ name: String) -> [String] {
                ["train", set.command, "--data", set.data, "--output", work.appendingPathComponent("\(set.command)-\(name)/model.h5").path,
                 "--seed", "0"] + set.extra
            }
            let oneThread = try run([coach] + arguments("one"), environment: ["COACH_THREADS": "1"])
            let twoThreads = try run([coach] + arguments("two-threads"), environment: ["COACH_THREADS": "2"])
            let job = try run([mpirun, "-np", "2", "--bind-to", "core", coach] + arguments("ranks"), environment: root)
            guard oneThread.status == 0, twoThreads.status == 0, job.status == 0 else {
                print("scale poses: a run failed:\n\(oneThread.standardError)\n\(job.standardError)")
                continue
            }
            print(String(format: "%@: 1 process × 1 thread %.1f s, × 2 threads %.1f s, mpirun -np 2 × 1 thread %.1f s",
                         set.name, oneThread.seconds, twoThreads.seconds, job.seconds))
            print(String(format: "mpirun-np2-vs-one-thread %@: %.2f; vs two threads: %.2f", set.command,
                         oneThread.seconds / job.seconds, twoThreads.seconds / job.seconds))
        }
    }
}
