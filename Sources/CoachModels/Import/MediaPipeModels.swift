import Foundation

/// MediaPipe's body and hand models as the PyPI wheel `mediapipe==0.10.21` (Apache-2.0) ships
/// them, and their import into Coach model files.
public enum MediaPipeModel: String, CaseIterable, Sendable {
    /// BlazePose's person detector (224² input; 2,254 anchors × 12 box and keypoint values, scores).
    case bodyDetector = "body-detector"
    /// BlazePose's full landmark model (256² input; 33 landmarks × (x, y, z, visibility, presence)).
    case bodyLandmarks = "body-landmarks"
    /// The palm detector (192² input; 2,016 anchors × 18 values, scores).
    case palmDetector = "palm-detector"
    /// The full hand landmark model (224² input; 21 landmarks × (x, y, z), hand flag, handedness).
    case handLandmarks = "hand-landmarks"

    /// The pinned wheel the models come from.
    public static let package = "mediapipe==0.10.21"

    /// The model's file name inside the wheel.
    public var fileName: String {
        switch self {
        case .bodyDetector: return "pose_detection.tflite"
        case .bodyLandmarks: return "pose_landmark_full.tflite"
        case .palmDetector: return "palm_detection_full.tflite"
        case .handLandmarks: return "hand_landmark_full.tflite"
        }
    }

    /// The model's path inside the wheel.
    public var pathInWheel: String {
        switch self {
        case .bodyDetector: return "mediapipe/modules/pose_detection/" + fileName
        case .bodyLandmarks: return "mediapipe/modules/pose_landmark/" + fileName
        case .palmDetector: return "mediapipe/modules/palm_detection/" + fileName
        case .handLandmarks: return "mediapipe/modules/hand_landmark/" + fileName
        }
    }

    /// The SHA-256 of the file in the pinned wheel.
    public var sha256: String {
        switch self {
        case .bodyDetector: return "9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c"
        case .bodyLandmarks: return "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f"
        case .palmDetector: return "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54"
        case .handLandmarks: return "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3"
        }
    }

    /// The Coach model file's name.
    public var modelFileName: String { rawValue + ".h5" }

    /// The model task recorded in the file.
    public var task: ModelTask { ModelTask(rawValue: rawValue) }

    /// The model imported from the TFLite file at `url`, which must be the pinned wheel's file
    /// (a different file is a `TFLiteError.unsupported` naming both digests).
    public func importModel(from url: URL) throws -> ModelFile {
        let digest = try FileDigest.sha256(ofFileAt: url)
        guard digest == sha256 else {
            throw TFLiteError.unsupported(path: url.path, problems: [
                "SHA-256 \(digest) is not that of \(pathInWheel) in \(MediaPipeModel.package) (\(sha256)); "
                    + "Coach's pose pipeline is built for that exact model",
            ])
        }
        let graph = try TFLiteImporter.graph(of: try TFLiteModel(contentsOf: url))
        let metadata = ModelMetadata(
            task: task, name: rawValue,
            summary: "MediaPipe's \(fileName) from \(MediaPipeModel.package) (Apache-2.0), imported by Coach",
            extra: ["source": ["package": .string(MediaPipeModel.package), "path": .string(pathInWheel),
                               "sha256": .string(digest), "license": "Apache-2.0"]])
        return try graph.modelFile(metadata: metadata)
    }
}
