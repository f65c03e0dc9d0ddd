import ArgumentParser
import CoachData
import CoachModels
import CoachRuntime
import Foundation

/// `coach analyze`: the Action & Vision game on a video — board, stability, throws, scores.
struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Play the Action & Vision cornhole game on a video: typed, measured and scored throws.",
        discussion: """
        Runs Apple's Action & Vision app on a video from a fixed camera, state by state: the \
        board detector finds the board; once the camera is still (the mean shift of the last 15 \
        frames under 10 px) the board's outline and hole are measured by contours, giving the \
        scale from its real size (4 × 2 ft, 6-in hole); once a player is seen, every bag's flight \
        is followed (trajectory detection like Vision's); a throw is complete when its bag has \
        not been seen for 20 frames. Each throw then gets its type (the action classifier on the \
        poses around the release), its speed (the flight's length over its duration), its \
        release angle (elbow → wrist when the bag left the hand), where it landed (board, hole, \
        missed) and its points (board 1, hole 3, plus --style-points).

        Poses come from Coach's body pose detector (models from `make build` or `coach \
        import-pose-models`, in --pose-models) or from a pose clip recorded with the video \
        (--poses, FORMATS §3). Without --classifier, throws are not typed.

        Examples:
          coach analyze game.mp4 --detector models/boards.h5 \\
                --classifier models/throws.h5
          coach analyze game.mp4 --board-box 860,500,320,80 \\
                --classifier models/throws.h5 --json
          coach analyze frames/ --frame-rate 30 --board-box 860,500,320,80 \\
                --poses poses.csv --frames keyframes/
        """)

    @Argument(help: "A video (.mp4, .mov, …) or a folder of frames (an image sequence, in name order).")
    var video: String

    @Option(help: ArgumentHelp("The board detector (an object-detector model file).", valueName: "model.h5"))
    var detector: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The board's box in pixels instead of a detector: x,y,width,height (top-left origin).", valueName: "x,y,w,h"))
    var boardBox: String?

    @Option(help: ArgumentHelp("The throw classifier (an action-classifier model file on body18 poses).", valueName: "model.h5"))
    var classifier: String?

    @Option(help: ArgumentHelp("The folder with the imported pose models.", valueName: "folder"))
    var poseModels: String = "models/pose"

    @Option(help: ArgumentHelp("A body18 pose clip recorded with the video (CSV or JSON, times in seconds) instead of detecting poses.", valueName: "clip"))
    var poses: String?

    @Option(help: ArgumentHelp("Extra points for a scoring throw of a type: type=points,… (e.g. underleg=1).", valueName: "type=points,…"))
    var stylePoints: String?

    @Option(parsing: .unconditional, help: "Frames per second of a folder of frames.")
    var frameRate: Double = 30

    @Option(help: ArgumentHelp("Write key frames (board, stable scene, each completed throw) with the overlay as PNGs into this folder.", valueName: "folder"))
    var frames: String?

    @Option(help: ArgumentHelp("Write the video with the board outline, hole, bag paths, skeleton and each throw's label drawn on it (.mp4, .mov, .mkv).", valueName: "video"))
    var draw: String?

    @Flag(help: "Print the throws and the total as JSON.")
    var json = false

    @Flag(help: "Replace key-frame files that already exist.")
    var overwrite = false

    func validate() throws {
        guard FileManager.default.fileExists(atPath: video) else { throw ValidationError("no such video or folder: \(video)") }
        guard MediaKind.of(URL(fileURLWithPath: video)) != .photo, MediaKind.of(URL(fileURLWithPath: video)) != nil else {
            throw ValidationError("\(video) is not a video or a folder of frames (videos: \(MediaKind.videoExtensions.sorted().joined(separator: ", ")))")
        }
        guard (detector == nil) != (boardBox == nil) else {
            throw ValidationError("give the board detector (--detector boards.h5) or the board's box (--board-box x,y,w,h), one of them")
        }
        if let boardBox { _ = try Self.parseBox(boardBox) }
        if let draw {
            guard ["mp4", "mov", "mkv", "m4v"].contains(URL(fileURLWithPath: draw).pathExtension.lowercased()) else {
                throw ValidationError("--draw must name a .mp4, .mov or .mkv video (got '\(draw)')")
            }
            try OutputGuard.checkFileOutput(draw, option: "--draw", inputs: [video], overwrite: overwrite)
        }
        if let stylePoints { _ = try Self.parseStylePoints(stylePoints) }
        if let frames {
            let target = OutputGuard.resolved(frames), input = OutputGuard.resolved(video)
            if target == input || target.hasPrefix(input + "/") {
                throw ValidationError("--frames \(frames) is the input's own folder of frames: choose another folder")
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: frames, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw ValidationError("--frames \(frames) is a file: name a folder for the key frames")
            }
        }
        if let problem = PoseLimits.frameRateProblem(frameRate) { throw ValidationError("--frame-rate \(problem)") }
        for (option, path) in [("--detector", detector), ("--classifier", classifier), ("--poses", poses)] {
            if let path, !FileManager.default.fileExists(atPath: path) { throw ValidationError("\(option): no such file: \(path)") }
        }
    }

    static func parseBox(_ text: String) throws -> PixelBox {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
              [x, y, w, h].allSatisfy(\.isFinite), w > 0, h > 0 else {
            throw ValidationError("--board-box must be four numbers x,y,width,height in pixels with a positive width and height (got '\(text)')")
        }
        guard w >= 16, h >= 4, x >= 0, y >= 0 else {
            throw ValidationError("--board-box \(text): a board is at least 16×4 pixels and starts inside the frame (x, y ≥ 0); give its box in the video's pixels")
        }
        return PixelBox(x: x, y: y, width: w, height: h)
    }

    static func parseStylePoints(_ text: String) throws -> [String: Int] {
        var result: [String: Int] = [:]
        for item in text.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, !pair[0].isEmpty, let points = Int(pair[1]), abs(points) <= 1000 else {
                throw ValidationError("--style-points takes type=points pairs, e.g. underleg=1,overhand=0 (got '\(item)')")
            }
            guard result[pair[0]] == nil else {
                throw ValidationError("--style-points gives '\(pair[0])' twice (got '\(text)')")
            }
            result[pair[0]] = points
        }
        return result
    }

    func run() throws {
        let url = URL(fileURLWithPath: video)
        let locator: BoardLocator
        if let boardBox {
            locator = FixedBoardLocator(box: try Self.parseBox(boardBox))
        } else {
            locator = try ObjectDetector(contentsOf: URL(fileURLWithPath: detector!))
        }
        let classifierModel = try classifier.map { try ActionClassifier(contentsOf: URL(fileURLWithPath: $0)).model }
        if let classifierModel, classifierModel.jointSet != .body18 {
            throw ValidationError("--classifier \(classifier!) classifies \(classifierModel.jointSet.count) joints, not body18 poses: give a throw classifier trained on body18 poses")
        }
        let poseSource: BodyPoseSource
        var posesSpan: (first: Double, last: Double)?
        if let poses {
            let clip = try PoseClipReader.read(URL(fileURLWithPath: poses))
            guard let body = clip.reordered(to: .body18) else {
                throw ValidationError("--poses \(poses) does not hold body18 joints (it has \(clip.jointSet.names.prefix(4).joined(separator: ", "))…)")
            }
            poseSource = RecordedBodyPoses(frames: body.frames)
            let detected = body.frames.filter { $0.keypoints.contains { ($0?.confidence ?? 0) > 0 } }
            posesSpan = detected.isEmpty ? nil : (detected.first!.time, detected.last!.time)
        } else {
            do {
                poseSource = try BodyPoseDetector(modelFolder: URL(fileURLWithPath: poseModels))
            } catch {
                throw ValidationError("\(error.localizedDescription)\nThe pose models come from `make build` (or `coach import-pose-models`); point --pose-models at their folder, or give recorded poses with --poses.")
            }
        }
        var configuration = ThrowAnalyzer.Configuration()
        if let stylePoints {
            let points = try Self.parseStylePoints(stylePoints)
            // A type no throw can have would be ignored: name it instead (issue 14).
            guard let classifierModel else {
                throw ValidationError("--style-points needs --classifier: throw types come from the throw classifier")
            }
            let unknown = points.keys.filter { !classifierModel.labels.contains($0) }.sorted()
            if !unknown.isEmpty {
                throw ValidationError("--style-points names \(unknown.map { "'\($0)'" }.joined(separator: ", ")), which the classifier "
                                      + "\(classifier!) does not have: its throw types are \(classifierModel.labels.joined(separator: ", "))")
            }
            configuration.rules.stylePoints = points
        }
        let game = ThrowAnalyzer(board: locator, poses: poseSource, classifier: classifierModel, configuration: configuration)
        if let frames { try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true) }

        let started = Date()
        var seen = 0
        var keyFrames = 0
        var encoder: VideoEncoder?
        var lastLabel: (text: String, path: [SIMD2<Double>], until: Double)?
        func handle(_ image: RGBImage, _ time: Double, _ events: [ThrowAnalyzer.Event]) throws {
            seen += 1
            for case let .throwCompleted(record) in events {
                lastLabel = (Self.describe(.throwCompleted(record)), record.path, time + 2)
            }
            if let draw {
                if encoder == nil {
                    encoder = try VideoEncoder(writingTo: URL(fileURLWithPath: draw), width: image.width, height: image.height,
                                               frameRate: frameRate(of: url))
                }
                var picture = image
                let label = lastLabel.flatMap { $0.until >= time ? $0 : nil }
                GameOverlay.draw(on: &picture, board: game.board, paths: game.activePaths + (label.map { [$0.path] } ?? []),
                                 pose: game.currentPose,
                                 caption: [String(format: "%.2f s  %@  total %d", time, game.state.rawValue, game.total)]
                                     + (label.map { [$0.text] } ?? []))
                if picture.width == encoder!.width, picture.height == encoder!.height { try encoder!.append(picture) }
            }
            let rate = Double(seen) / max(Date().timeIntervalSince(started), 1e-9)
            if !json {
                Console.progress("\(url.lastPathComponent): \(seen) frames · \(String(format: "%.1f", rate)) frames/s · \(game.state.rawValue)"
                                 + " · \(game.throwRecords.count) throw\(game.throwRecords.count == 1 ? "" : "s")", phase: "analyze")
            }
            for event in events {
                if !json { Console.clearProgress(); Console.note(Self.describe(event)) }
                guard let frames else { continue }
                var picture = image
                GameOverlay.draw(on: &picture, board: game.board, paths: game.activePaths + Self.paths(of: event),
                                 pose: game.currentPose, caption: [String(format: "%.2f s", time), Self.describe(event)])
                keyFrames += 1
                let file = URL(fileURLWithPath: frames).appendingPathComponent(String(format: "%03d-%.2fs.png", keyFrames, time))
                try OutputGuard.checkFileOutput(file.path, option: "--frames", inputs: [video], overwrite: overwrite)
                try picture.writePNG(to: file)
            }
        }
        var damage: String?
        switch MediaKind.of(url) {
        case .imageSequence:
            let photos = try PoseExtractor.photos(in: url)
            for (index, photo) in photos.enumerated() {
                let image = try ImageDecoder.decode(contentsOf: photo).image
                // One camera's frames share one size (extract-poses refuses the same).
                if let size = game.lastFrameSize, size != (image.width, image.height) {
                    throw PoseExtractionError.mixedFrameSizes(path: photo.path, width: image.width, height: image.height,
                                                              expectedWidth: size.width, expectedHeight: size.height,
                                                              first: photos[0].lastPathComponent)
                }
                let time = Double(index) / frameRate
                try handle(image, time, game.process(image, at: time))
            }
        default:
            let decoder = try VideoDecoder(contentsOf: url)
            try decoder.forEachFrame { frame in
                try handle(frame.image, frame.time, game.process(frame.image, at: frame.time))
            }
            damage = decoder.damageReport
        }
        if let damage { Console.clearProgress(); Console.warning(damage) }
        let last = game.finish()
        if let encoder {
            try encoder.finish()
            if !json {
                Console.note("drew \(encoder.frameCount) frames into \(encoder.url.path)"
                             + (game.problem == nil ? "" : " (the analysis did not get through the game: the video shows how far it got)"))
            }
        }
        if !json { Console.clearProgress(); for event in last { Console.note(Self.describe(event)) } }
        let seconds = Date().timeIntervalSince(started)
        let report = GameReport(video: video, frames: seen, seconds: seconds, board: game.board, throwRecords: game.throwRecords,
                                total: game.total, problem: game.problem?.errorDescription, damage: damage)
        if json {
            try Console.printJSON(report)
        } else if game.problem != nil && game.throwRecords.isEmpty {
            // No score to show: a "total: 0 points" would read as a game played and lost.
        } else {
            Console.print(Self.table(game.throwRecords))
            Console.print("total: \(game.total) point\(game.total == 1 ? "" : "s") in \(game.throwRecords.count) throw\(game.throwRecords.count == 1 ? "" : "s")"
                          + String(format: " (%d frames, %.1f frames/s)", seen, Double(seen) / max(seconds, 1e-9)))
        }
        if let problem = game.problem {
            if case .noBoard = problem, let boardBox, let frame = game.lastFrameSize {
                // The box was given: "no board found" would send the user looking for a detector.
                let share = FixedBoardLocator(box: try Self.parseBox(boardBox)).frameShare(width: frame.width, height: frame.height)
                if share > FixedBoardLocator.maximumFrameShare {
                    throw ValidationError("\(video): --board-box \(boardBox) covers \(Int((share * 100).rounded())) % of the video's "
                                          + "\(frame.width)×\(frame.height) frames: a board seen whole, with the player and the bag's flight "
                                          + "beside it, covers far less (at most \(Int(FixedBoardLocator.maximumFrameShare * 100)) %); give the "
                                          + "board's own box, or film from further away")
                }
                throw ValidationError("\(video): --board-box \(boardBox) lies outside the video's \(frame.width)×\(frame.height) frames: "
                                      + "give the board's box in the video's pixels (x,y,width,height from the top-left corner)")
            }
            if case .neverStable = problem, game.frameCount < configuration.stabilityHistory {
                throw ValidationError("\(video): the video has only \(game.frameCount) frame\(game.frameCount == 1 ? "" : "s"), and the "
                                      + "camera must be seen still over \(configuration.stabilityHistory) frames in a row before a game starts")
            }
            var detail = ""
            switch problem {
            case .noPlayer where poses != nil:
                let stable = game.stableTime.map { String(format: "%.2f s", $0) } ?? "?"
                detail = posesSpan.map { String(format: " (the --poses clip has a person from %.2f s to %.2f s; the scene was still from %@ on: do their times match the video's?)", $0.first, $0.last, stable) }
                    ?? " (no frame of the --poses clip has a detected joint)"
            default: break
            }
            throw ValidationError("\(video): \(problem.errorDescription ?? "the game could not be played")\(detail)")
        }
    }

    /// The frame rate to write --draw at: the video's own, else --frame-rate.
    func frameRate(of url: URL) -> Double {
        guard MediaKind.of(url) == .video, let decoder = try? VideoDecoder(contentsOf: url), decoder.frameRate > 0,
              decoder.frameRate <= 1000 else { return frameRate }
        return decoder.frameRate
    }

    /// One line for an event.
    static func describe(_ event: ThrowAnalyzer.Event) -> String {
        switch event {
        case let .boardFound(box, time):
            return String(format: "%.2f s: board found at (%.0f, %.0f) %.0f×%.0f px", time, box.x, box.y, box.width, box.height)
        case let .sceneStable(board, time):
            return String(format: "%.2f s: scene stable; board measured by %@, %.2f mm per pixel", time,
                          board.methodDescription, board.metresPerPixel * 1000)
        case let .playerFound(time):
            return String(format: "%.2f s: player in view, game on", time)
        case let .throwCompleted(record):
            return String(format: "%.2f s: throw %d: %@ %.1f m/s, %@", record.releaseTime, record.number, record.type ?? "(untyped)",
                          record.speed, record.landing.rawValue) + ", \(record.points) point\(record.points == 1 ? "" : "s") (total \(record.runningTotal))"
        }
    }

    static func paths(of event: ThrowAnalyzer.Event) -> [[SIMD2<Double>]] {
        if case let .throwCompleted(record) = event { return [record.path] }
        return []
    }

    /// The throws as a table.
    static func table(_ records: [ThrowRecord]) -> String {
        var lines = ["  #   time  type        conf   speed (m/s, mph)  angle  landing  points  total"]
        for r in records {
            let type = (r.type ?? "-").padding(toLength: 10, withPad: " ", startingAt: 0)
            let confidence = r.typeConfidence.map { String(format: "%4.2f", $0) } ?? "   -"
            let angle = r.releaseAngle.map { String(format: "%4.0f°", $0) } ?? "    -"
            lines.append(String(format: "%3d %6.2fs  %@  %@  %6.1f %6.1f      %@  %@  %6d  %5d", r.number, r.releaseTime, type,
                                confidence, r.speed, r.speedMilesPerHour, angle,
                                r.landing.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0), r.points, r.runningTotal))
        }
        if records.isEmpty { lines.append("  (no throws)") }
        return lines.joined(separator: "\n")
    }
}

/// What `coach analyze --json` prints.
struct GameReport: Encodable {
    var video: String
    var frames: Int
    var seconds: Double
    var board: BoardGeometry?
    var throwRecords: [ThrowRecord]
    var total: Int
    var problem: String?
    /// What the video decoder said about damaged data (nil: none).
    var damage: String?

    enum CodingKeys: String, CodingKey { case video, frames, seconds, board, throwRecords = "throws", total, problem, damage }
}
