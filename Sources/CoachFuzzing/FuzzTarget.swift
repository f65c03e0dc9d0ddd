import CoachData
import CoachModels
import Foundation

/// Coach's parsers as fuzz targets (issue 14; `make fuzz`, README "Fuzzing"): each takes arbitrary
/// bytes as the file it reads and must either read them or throw a typed error — never crash,
/// hang or exhaust memory. Readers that take a file get the bytes written to a scratch file
/// beside the fixed companions their format needs (an image an annotation names, a clip an
/// action annotation names, a YOLO class list).
public enum FuzzTarget: String, CaseIterable, Sendable {
    case poseCSV = "pose-csv"
    case poseJSON = "pose-json"
    case poseTable = "pose-table"
    case actionAnnotationsCSV = "action-annotations-csv"
    case actionAnnotationsJSON = "action-annotations-json"
    case detectionJSON = "detection-json"
    case yolo
    case pascalVOC = "pascal-voc"
    case pickle
    case modelFile = "model-file"
    case image
    case tflite
    case video

    /// What the target reads, for `coach-fuzz --help` and the README.
    public var summary: String {
        switch self {
        case .poseCSV: return "a pose clip CSV (FORMATS 3.2)"
        case .poseJSON: return "a pose clip JSON"
        case .poseTable: return "a pose table CSV with sequence and label columns"
        case .actionAnnotationsCSV: return "a Create ML action annotation CSV naming clip.csv"
        case .actionAnnotationsJSON: return "a Create ML action annotation JSON naming clip.csv"
        case .detectionJSON: return "a Create ML detection annotation JSON naming a.png"
        case .yolo: return "a YOLO label file for a.png (classes.txt: board, hole)"
        case .pascalVOC: return "a Pascal VOC XML file for a.png"
        case .pickle: return "a PyTorch legacy checkpoint (pickle + storages)"
        case .modelFile: return "a Coach HDF5 model file, then every model type's loader"
        case .image: return "a JPEG or PNG image"
        case .tflite: return "a TFLite flatbuffer, then the importer"
        case .video: return "a video file through FFmpeg (the first 30 frames)"
        }
    }
}

/// Runs targets on inputs in one scratch folder (one per process).
public final class FuzzRunner {
    public let target: FuzzTarget
    let folder: URL

    /// A runner for `target`, with its companion files written once.
    public init(target: FuzzTarget) throws {
        self.target = target
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("coach-fuzz-\(getpid())-\(target.rawValue)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pixels = try ImageEncoder.pngData(RGBImage(width: 64, height: 48, color: .white))
        switch target {
        case .actionAnnotationsCSV, .actionAnnotationsJSON:
            try Data("time,hand_x,hand_y\n0,0.1,0.2\n0.1,0.2,0.3\n0.2,0.3,0.4\n".utf8).write(to: folder.appendingPathComponent("clip.csv"))
        case .detectionJSON, .pascalVOC:
            try pixels.write(to: folder.appendingPathComponent("a.png"))
        case .yolo:
            try pixels.write(to: folder.appendingPathComponent("a.png"))
            try Data("board\nhole\n".utf8).write(to: folder.appendingPathComponent("classes.txt"))
        default:
            break
        }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Reads `bytes` as the target's input. Returns true when they were accepted, false when
    /// refused with an error (both are fine; a crash is the failure fuzzing looks for).
    @discardableResult
    public func run(_ bytes: [UInt8]) -> Bool {
        do {
            try read(bytes)
            return true
        } catch {
            _ = "\(error)"   // every error must also describe itself without trapping
            return false
        }
    }

    func write(_ bytes: [UInt8], as name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    func read(_ bytes: [UInt8]) throws {
        switch target {
        case .poseCSV: _ = try PoseClipReader.read(try write(bytes, as: "clip.csv"))
        case .poseJSON: _ = try PoseClipReader.read(try write(bytes, as: "clip.json"))
        case .poseTable: _ = try PoseDataset.loadTable(try write(bytes, as: "table.csv"))
        case .actionAnnotationsCSV: _ = try PoseDataset.loadAnnotations(try write(bytes, as: "annotations.csv"))
        case .actionAnnotationsJSON: _ = try PoseDataset.loadAnnotations(try write(bytes, as: "annotations.json"))
        case .detectionJSON: _ = try DetectionDataset.load(from: try write(bytes, as: "annotations.json"))
        case .yolo:
            _ = try write(bytes, as: "a.txt")
            _ = try DetectionDataset.load(from: folder)
        case .pascalVOC:
            _ = try write(bytes, as: "a.xml")
            _ = try DetectionDataset.load(from: folder)
        case .pickle: _ = try TorchLegacyCheckpoint(bytes: bytes, path: "fuzz.pth")
        case .modelFile:
            let file = try ModelFile.read(from: try write(bytes, as: "model.h5"))
            // Every loader, whatever the task says: each must refuse what is not its own.
            _ = try? ActionClassifierModel(file: file)
            _ = try? HandPoseClassifierModel(file: file)
            _ = try? ObjectDetectorModel(file: file)
            _ = try? ImageClassifierModel(file: file, path: "model.h5")
            _ = try? GraphNetwork(file: file)
        case .image: _ = try ImageDecoder.decode(Data(bytes), source: "fuzz")
        case .tflite: _ = try TFLiteImporter.graph(of: try TFLiteModel(bytes: bytes, path: "fuzz.tflite"))
        case .video:
            let decoder = try VideoDecoder(contentsOf: try write(bytes, as: "clip.mp4"))
            for _ in 0..<30 { guard try decoder.nextFrame() != nil else { break } }
        }
    }
}
