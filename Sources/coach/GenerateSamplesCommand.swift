import ArgumentParser
import CoachData
import CoachSamples
import Foundation

/// `coach generate-samples`: writes the project's seeded sample datasets (no data is
/// shipped in the repository; `make demo` generates it).
struct GenerateSamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-samples",
        abstract: "Write the seeded sample datasets that `make demo` trains on.",
        discussion: """
        Every dataset is synthetic and fully determined by --seed:
          throws       3-D people of varied build throwing overhand, underhand and
                       under the leg among things people do between throws, plus real
                       motion capture (datasets/mocap-motions) as 'none', filmed by
                       virtual phone cameras from every side and seen by a simulated
                       pose detector: body18 pose CSV/JSON clips plus Create ML
                       annotation CSVs (train/ and test/, other people in test/)
          hand-poses   21-joint hands (open, fist, one, peace, background) with
                       chirality, as single-pose CSV tables (train.csv, test.csv)
          hand-actions 21-joint hand clips (wave, grab, swipe, background) with
                       chirality, a folder per class (train/<label>/, test/<label>/)
          sports-gear  rendered photos of a ball, cone, bean bag or disc on varied
                       grounds, as labeled image folders (train/<label>/, test/<label>/
                       JPEGs)
          boards       rendered photos of a cornhole board with its hole and red/blue
                       bags in varied perspective, scale and light on varied grounds,
                       with Create ML annotation JSON (train/ and test/, labels board,
                       hole, red_bag, blue_bag)
          game         a rendered cornhole game filmed from the side, for
                       `coach analyze`: a shaken first second, a stick-figure player
                       throwing underhand onto the board, overhand into the hole and
                       under the leg beside it (game.mp4, the player's poses.csv and
                       truth.json with the board's box, each flight's parabola, speed,
                       release angle, landing and points)

        Examples:
          coach generate-samples --output datasets/generated
          coach generate-samples --only throws --seed 7 --output /tmp/samples
        """)

    /// The datasets this command can write.
    enum Sample: String, CaseIterable, ExpressibleByArgument {
        case throws_ = "throws"
        case handPoses = "hand-poses"
        case handActions = "hand-actions"
        case sportsGear = "sports-gear"
        case boards
        case game
    }

    @Option(help: "The folder to write the datasets into (one subfolder each).")
    var output: String = "datasets/generated"

    @Option(parsing: .upToNextOption, help: "Which datasets to write (default: all): \(Sample.allCases.map(\.rawValue).joined(separator: ", ")).")
    var only: [Sample] = []

    @Option(parsing: .unconditional, help: "The seed every random choice flows from.")
    var seed: UInt64 = 1

    @Option(help: "The motion-capture folder the throws dataset shows as real background motion (default: the checkout's datasets/mocap-motions).")
    var motionCapture: String?

    @Flag(help: "Write into a dataset folder even when generate-samples did not make it (its files of the same names are replaced).")
    var overwrite = false

    /// The file marking a folder as generate-samples' own, so a later run may write into it.
    static let marker = ".coach-generated"
    /// How the marker begins while the set is being written (and after a run was killed).
    static let unfinishedPrefix = "being written by coach generate-samples"

    /// Refuses to write into `folder` when it exists but is not a folder this command made.
    func checkDestination(_ folder: URL) throws {
        var status = stat()
        guard lstat(folder.path, &status) == 0 else { return }   // nothing there yet
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw ValidationError("\(folder.path) exists and is not a folder: choose another --output")
        }
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        if overwrite || contents.isEmpty || contents.contains(Self.marker) { return }
        throw ValidationError("\(folder.path) exists and was not made by generate-samples (no \(Self.marker) in it): it may be your data; "
                              + "choose another --output, or pass --overwrite to write into it")
    }

    func run() throws {
        try reportingErrors {
            let root = URL(fileURLWithPath: output)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), !isFolder.boolValue {
                throw ValidationError("--output '\(output)' is not a folder: generate-samples writes a folder per sample into it; choose another --output")
            }
            if let motionCapture {
                var isMotionFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: motionCapture, isDirectory: &isMotionFolder), isMotionFolder.boolValue else {
                    throw ValidationError("--motion-capture '\(motionCapture)' is not a folder: give the folder of motion-capture trials "
                                          + "with their labels.csv (../shared/data/mocap-motions)")
                }
            }
            let samples = only.isEmpty ? Sample.allCases : only
            for sample in samples { try checkDestination(root.appendingPathComponent(sample.rawValue)) }
            for sample in samples {
                let folder = root.appendingPathComponent(sample.rawValue)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                // The marker lets a later run write here again; until the sample is finished it says
                // so, and a run that was killed leaves it saying so.
                let marker = folder.appendingPathComponent(Self.marker)
                try Data("\(Self.unfinishedPrefix) --seed \(seed) (incomplete until this line changes)\n".utf8)
                    .write(to: marker, options: .atomic)
                switch sample {
                case .throws_:
                    var configuration = ThrowDatasetConfiguration()
                    if let motionCapture { configuration.motionCaptureDirectory = URL(fileURLWithPath: motionCapture) }
                    let (train, test) = try ThrowDatasetGenerator(configuration: configuration).generateSplits(
                        into: root.appendingPathComponent("throws"), trainingClips: 240, testClips: 80, seed: seed)
                    Console.print("throws: \(train.clipFiles.count) training clips → \(train.annotationFile.path), "
                                  + "\(test.clipFiles.count) test clips → \(test.annotationFile.path)")
                case .handPoses:
                    let (train, test) = try HandPoseDatasetGenerator().generateSplits(
                        into: root.appendingPathComponent("hand-poses"), trainingSamplesPerClass: 200,
                        testSamplesPerClass: 50, seed: seed &+ 1)
                    Console.print("hand-poses: \(train.file.path), \(test.file.path)")
                case .handActions:
                    let (train, test) = try HandActionDatasetGenerator().generateSplits(
                        into: root.appendingPathComponent("hand-actions"), trainingClipsPerClass: 40,
                        testClipsPerClass: 15, seed: seed &+ 3)
                    Console.print("hand-actions: \(train.clipFiles.count) training clips in \(train.root.path), "
                                  + "\(test.clipFiles.count) test clips in \(test.root.path)")
                case .sportsGear:
                    let summary = try SportsGearImageGenerator().generate(
                        into: root.appendingPathComponent("sports-gear"), trainingPerClass: 40, testPerClass: 15, seed: seed &+ 2)
                    let total = summary.counts.values.flatMap(\.values).reduce(0, +)
                    Console.print("sports-gear: \(total) images in \(summary.root.path)/train and /test "
                                  + "(\(SportsGear.allCases.map(\.rawValue).joined(separator: ", ")))")
                case .boards:
                    let (train, test) = try BoardDatasetGenerator().generateSplits(
                        into: root.appendingPathComponent("boards"), trainingImages: 160, testImages: 40, seed: seed &+ 3)
                    Console.print("boards: \(train.imageFiles.count) training photos → \(train.annotationFile.path), "
                                  + "\(test.imageFiles.count) test photos → \(test.annotationFile.path)")
                case .game:
                    var configuration = GameVideoConfiguration()
                    configuration.seed = seed
                    let files = try GameVideo(configuration: configuration).write(into: folder)
                    let box = files.boardBox
                    Console.print("game: \(files.video.path) with \(files.poses.path) and \(files.truth.path) (board box "
                                  + String(format: "%.0f,%.0f,%.0f,%.0f", box.x, box.y, box.width, box.height) + ")")
                }
                try Data("written by coach generate-samples --seed \(seed)\n".utf8).write(to: marker, options: .atomic)
            }
        }
    }
}
