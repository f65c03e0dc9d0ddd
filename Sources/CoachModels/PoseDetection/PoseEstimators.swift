import CoachData
import CoachTensor
import Foundation

/// One landmark: x, y normalised to the image (origin top-left), z MediaPipe's relative depth
/// (same scale as x), and a confidence in 0…1.
public struct PoseLandmark: Equatable, Sendable {
    public var x: Float, y: Float, z: Float
    public var confidence: Float
    public init(x: Float, y: Float, z: Float = 0, confidence: Float) {
        self.x = x
        self.y = y
        self.z = z
        self.confidence = confidence
    }
}

/// A person's 33 BlazePose landmarks in an image.
public struct BodyLandmarks: Equatable, Sendable {
    /// MediaPipe's 33 landmark names, in the model's order.
    public static let names = [
        "nose", "leftEyeInner", "leftEye", "leftEyeOuter", "rightEyeInner", "rightEye", "rightEyeOuter", "leftEar",
        "rightEar", "mouthLeft", "mouthRight", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist",
        "rightWrist", "leftPinky", "rightPinky", "leftIndex", "rightIndex", "leftThumb", "rightThumb", "leftHip",
        "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle", "leftHeel", "rightHeel", "leftFootIndex",
        "rightFootIndex",
    ]
    /// The 33 landmarks; confidence is the visibility MediaPipe predicts.
    public var landmarks: [PoseLandmark]
    /// The model's two auxiliary points, the hip centre and a point on the circle around the body:
    /// the next frame's region comes from them when tracking.
    public var auxiliary: [PoseLandmark]
    /// The model's confidence that a person is in the region.
    public var score: Float
    /// The region the landmark model looked at.
    public var region: RotatedRegion

    /// The landmarks as Vision's body joints in `JointSet.body18` order (the person's own left and
    /// right); neck is the shoulders' midpoint with the lower of their confidences.
    public var body18: [PoseLandmark] {
        let index = Dictionary(uniqueKeysWithValues: BodyLandmarks.names.enumerated().map { ($1, $0) })
        return JointSet.body18.names.map { name in
            if name == "neck" {
                let l = landmarks[index["leftShoulder"]!], r = landmarks[index["rightShoulder"]!]
                return PoseLandmark(x: (l.x + r.x) / 2, y: (l.y + r.y) / 2, z: (l.z + r.z) / 2, confidence: min(l.confidence, r.confidence))
            }
            return landmarks[index[name]!]
        }
    }
}

/// A hand's 21 landmarks in an image, in Vision's hand-joint order (`JointSet.hand21`).
public struct HandLandmarks: Equatable, Sendable {
    /// The 21 landmarks; each confidence is the hand's presence score (the model gives no per-joint one).
    public var landmarks: [PoseLandmark]
    /// The model's confidence that a hand is in the region.
    public var score: Float
    /// MediaPipe's handedness probability that the hand is a left hand *in a mirrored (selfie)
    /// image* — that is, the person's right hand in an ordinary photo.
    public var mirroredLeftProbability: Float
    public var region: RotatedRegion

    /// Whether this is the person's left hand (Vision's chirality) in an image that is `mirrored`
    /// (a front-camera selfie) or not, and how sure the model is.
    public func isLeftHand(mirrored: Bool = false) -> (isLeft: Bool, confidence: Float) {
        let left = mirrored ? mirroredLeftProbability : 1 - mirroredLeftProbability
        return (left >= 0.5, max(left, 1 - left))
    }
}

/// Why the pose models could not be loaded.
public enum PoseModelError: LocalizedError, Equatable, Sendable {
    case wrongModel(path: String, expected: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .wrongModel(let path, let expected, let reason):
            return "'\(path)' is not MediaPipe's \(expected) as `coach import-pose-models` writes it: \(reason)"
        }
    }
}

/// Loads one imported MediaPipe model and checks it is the expected one.
func loadPoseGraph(_ model: MediaPipeModel, folder: URL) throws -> GraphNetwork {
    let url = folder.appendingPathComponent(model.modelFileName)
    let file = try ModelFile.read(from: url)
    guard file.metadata.task == model.task else {
        throw PoseModelError.wrongModel(path: url.path, expected: model.rawValue, reason: "its task is '\(file.metadata.task)'")
    }
    return try GraphNetwork(file: file)
}

/// The single-shot detector step both pipelines share: the whole image letterboxed into the
/// square input, detections decoded and mapped back to the image.
struct LetterboxedDetector {
    let graph: GraphNetwork
    let executor: GraphExecutor
    let decoder: SSDDetectionDecoder
    let range: ClosedRange<Float>

    init(graph: GraphNetwork, strides: [Int], keypointCount: Int, range: ClosedRange<Float>) throws {
        let size = graph.inputs.first?.shape ?? []
        guard graph.inputs.count == 1, size.count == 4, size[1] == size[2], graph.outputs.count == 2 else {
            throw PoseModelError.wrongModel(path: "detector", expected: "detector", reason: "input \(size)")
        }
        let anchors = SSDAnchors.centers(height: size[1], width: size[2], strides: strides)
        guard graph.outputs[0].shape == [1, anchors.count, 4 + 2 * keypointCount], graph.outputs[1].shape == [1, anchors.count, 1] else {
            throw PoseModelError.wrongModel(path: "detector", expected: "detector", reason: "outputs \(graph.outputs.map(\.shape))")
        }
        self.graph = graph
        self.executor = GraphExecutor(graph)
        self.decoder = SSDDetectionDecoder(anchors: anchors, inputSize: Float(size[1]), keypointCount: keypointCount)
        self.range = range
    }

    func detect(_ image: RGBImage) -> [KeypointDetection] {
        let size = graph.inputs[0].shape[1]
        let w = Float(image.width), h = Float(image.height), long = max(w, h)
        let region = RotatedRegion(centerX: 0.5, centerY: 0.5, width: long / w, height: long / h)
        let padX = (long - w) / long / 2, padY = (long - h) / long / 2
        let outputs = executor.run([region.crop(image, size: size, range: range, border: .zero)])
        return decoder.detections(boxes: outputs[0].scalars, scores: outputs[1].scalars).map { d in
            var d = d
            func x(_ v: Float) -> Float { (v - padX) / (1 - 2 * padX) }
            func y(_ v: Float) -> Float { (v - padY) / (1 - 2 * padY) }
            d.xMin = x(d.xMin); d.xMax = x(d.xMax); d.yMin = y(d.yMin); d.yMax = y(d.yMax)
            d.keypoints = d.keypoints.map { (x: x($0.x), y: y($0.y)) }
            return d
        }
    }
}

/// MediaPipe's BlazePose pipeline on one image, run by Coach's engine: person detector → rotated
/// region from the hip centre and the body's extent → 256² crop → 33 landmarks (refined on the
/// heatmap) → image coordinates.
public struct BodyPoseEstimator: Sendable {
    let detector: LetterboxedDetector
    let landmarkGraph: GraphNetwork
    let landmarkExecutor: GraphExecutor
    /// Regions whose pose score is below this give no pose.
    public var minimumScore: Float = 0.5
    /// The landmark model's outputs the pipeline reads (landmarks, score, heatmap), in the order
    /// `landmarks(in:region:)` reads them.
    public static let usedLandmarkOutputs = [0, 1, 3]

    /// The estimator of the imported models in `folder` (`coach import-pose-models` writes them).
    public init(folder: URL) throws {
        detector = try LetterboxedDetector(graph: try loadPoseGraph(.bodyDetector, folder: folder), strides: [8, 16, 32, 32, 32],
                                           keypointCount: 4, range: -1...1)
        landmarkGraph = try loadPoseGraph(.bodyLandmarks, folder: folder)
        // Landmarks, pose score and heatmap only: not the 256² segmentation or world landmarks.
        landmarkExecutor = GraphExecutor(landmarkGraph.keepingOutputs(BodyPoseEstimator.usedLandmarkOutputs))
        guard landmarkGraph.inputs.first?.shape == [1, 256, 256, 3], landmarkGraph.outputs.map(\.shape).prefix(4) == [[1, 195], [1, 1], [1, 256, 256, 1], [1, 64, 64, 39]] else {
            throw PoseModelError.wrongModel(path: folder.appendingPathComponent(MediaPipeModel.bodyLandmarks.modelFileName).path,
                                            expected: "body landmark model", reason: "unexpected inputs or outputs")
        }
    }

    /// The people the detector finds, best first (normalised to the image).
    public func detections(in image: RGBImage) -> [KeypointDetection] { detector.detect(image) }

    /// The landmark model's region for a detection: centred on the hip-centre keypoint, twice its
    /// distance to the extent keypoint across, turned so the body points up, enlarged by 1.25.
    public func region(for detection: KeypointDetection, imageWidth: Int, imageHeight: Int) -> RotatedRegion {
        BodyPoseEstimator.region(center: detection.keypoints[0], extent: detection.keypoints[1],
                                 imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The region for the next frame from a pose's auxiliary points (MediaPipe's `pose_landmarks_to_roi`).
    public func region(following pose: BodyLandmarks, imageWidth: Int, imageHeight: Int) -> RotatedRegion {
        BodyPoseEstimator.region(center: (pose.auxiliary[0].x, pose.auxiliary[0].y), extent: (pose.auxiliary[1].x, pose.auxiliary[1].y),
                                 imageWidth: imageWidth, imageHeight: imageHeight)
    }

    static func region(center: (x: Float, y: Float), extent: (x: Float, y: Float), imageWidth: Int, imageHeight: Int) -> RotatedRegion {
        let dx = (extent.x - center.x) * Float(imageWidth), dy = (extent.y - center.y) * Float(imageHeight)
        let size = 2 * (dx * dx + dy * dy).squareRoot()
        let region = RotatedRegion(centerX: center.x, centerY: center.y, width: size / Float(imageWidth), height: size / Float(imageHeight),
                                   rotation: RotatedRegion.rotation(from: center, to: extent, target: .pi / 2,
                                                                    imageWidth: imageWidth, imageHeight: imageHeight))
        return region.transformed(scale: 1.25, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The 33 landmarks in `region`, nil when the model sees no person there.
    public func landmarks(in image: RGBImage, region: RotatedRegion) -> BodyLandmarks? {
        let outputs = landmarkExecutor.run([region.crop(image, size: 256, range: 0...1, border: .replicate)])
        let score = outputs[1].scalars[0]
        guard score >= minimumScore else { return nil }
        let raw = outputs[0].scalars
        func sigmoid(_ v: Float) -> Float { 1 / (1 + exp(-v)) }
        var points = (0..<35).map { i in
            PoseLandmark(x: raw[5 * i] / 256, y: raw[5 * i + 1] / 256, z: raw[5 * i + 2] / 256, confidence: sigmoid(raw[5 * i + 3]))
        }
        BodyPoseEstimator.refine(&points, heatmap: outputs[2])
        points = points.map { p in
            let projected = region.project(x: p.x, y: p.y)
            return PoseLandmark(x: projected.x, y: projected.y, z: p.z * region.width, confidence: p.confidence)
        }
        return BodyLandmarks(landmarks: Array(points[0..<33]), auxiliary: Array(points[33..<35]), score: score, region: region)
    }

    /// MediaPipe's `RefineLandmarksFromHeatmapCalculator` (kernel 7, minimum confidence 0.5): each
    /// landmark moves to the sigmoid-weighted centre of its heatmap's 7×7 window around it.
    static func refine(_ points: inout [PoseLandmark], heatmap: Tensor) {
        let rows = heatmap.shape[1], columns = heatmap.shape[2], channels = heatmap.shape[3]
        let offset = 3
        heatmap.withUnsafeBufferPointer { values in
            for i in points.indices where i < channels {
                let centerColumn = Int(points[i].x * Float(columns)), centerRow = Int(points[i].y * Float(rows))
                guard (0..<columns).contains(centerColumn), (0..<rows).contains(centerRow) else { continue }
                var sum: Float = 0, weightedColumn: Float = 0, weightedRow: Float = 0, maximum: Float = 0
                for row in max(0, centerRow - offset)..<min(rows, centerRow + offset + 1) {
                    for column in max(0, centerColumn - offset)..<min(columns, centerColumn + offset + 1) {
                        let confidence = 1 / (1 + exp(-values[(row * columns + column) * channels + i]))
                        sum += confidence
                        maximum = max(maximum, confidence)
                        weightedColumn += Float(column) * confidence
                        weightedRow += Float(row) * confidence
                    }
                }
                if maximum >= 0.5 && sum > 0 {
                    points[i].x = weightedColumn / Float(columns) / sum
                    points[i].y = weightedRow / Float(rows) / sum
                }
            }
        }
    }

    /// The most prominent person's landmarks in `image` (nil when there is none).
    public func estimate(_ image: RGBImage) -> BodyLandmarks? {
        guard let best = detections(in: image).first else { return nil }
        return landmarks(in: image, region: region(for: best, imageWidth: image.width, imageHeight: image.height))
    }
}

/// MediaPipe's hand pipeline on one image: palm detector → rotated hand region (wrist to middle
/// finger pointing up, 2.6× the palm, shifted towards the fingers) → 224² crop → 21 landmarks.
public struct HandPoseEstimator: Sendable {
    let detector: LetterboxedDetector
    let landmarkGraph: GraphNetwork
    let landmarkExecutor: GraphExecutor
    /// Regions whose hand score is below this give no hand.
    public var minimumScore: Float = 0.5
    /// Hands returned at most.
    public var maximumHands = 2
    /// The landmark model's outputs the pipeline reads (landmarks, score, handedness).
    public static let usedLandmarkOutputs = [0, 1, 2]

    /// The estimator of the imported models in `folder`.
    public init(folder: URL) throws {
        detector = try LetterboxedDetector(graph: try loadPoseGraph(.palmDetector, folder: folder), strides: [8, 16, 16, 16],
                                           keypointCount: 7, range: 0...1)
        landmarkGraph = try loadPoseGraph(.handLandmarks, folder: folder)
        landmarkExecutor = GraphExecutor(landmarkGraph.keepingOutputs(HandPoseEstimator.usedLandmarkOutputs))
        guard landmarkGraph.inputs.first?.shape == [1, 224, 224, 3], landmarkGraph.outputs.map(\.shape).prefix(3) == [[1, 63], [1, 1], [1, 1]] else {
            throw PoseModelError.wrongModel(path: folder.appendingPathComponent(MediaPipeModel.handLandmarks.modelFileName).path,
                                            expected: "hand landmark model", reason: "unexpected inputs or outputs")
        }
    }

    /// The palms the detector finds, best first.
    public func detections(in image: RGBImage) -> [KeypointDetection] { detector.detect(image) }

    /// The landmark model's region for a palm detection.
    public func region(for detection: KeypointDetection, imageWidth: Int, imageHeight: Int) -> RotatedRegion {
        let region = RotatedRegion(centerX: (detection.xMin + detection.xMax) / 2, centerY: (detection.yMin + detection.yMax) / 2,
                                   width: detection.xMax - detection.xMin, height: detection.yMax - detection.yMin,
                                   rotation: RotatedRegion.rotation(from: detection.keypoints[0], to: detection.keypoints[2], target: .pi / 2,
                                                                    imageWidth: imageWidth, imageHeight: imageHeight))
        return region.transformed(scale: 2.6, shiftY: -0.5, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The 21 landmarks in `region`, nil when the model sees no hand there.
    public func landmarks(in image: RGBImage, region: RotatedRegion) -> HandLandmarks? {
        let outputs = landmarkExecutor.run([region.crop(image, size: 224, range: 0...1, border: .replicate)])
        let score = outputs[1].scalars[0]
        guard score >= minimumScore else { return nil }
        let raw = outputs[0].scalars
        let points = (0..<21).map { i -> PoseLandmark in
            let projected = region.project(x: raw[3 * i] / 224, y: raw[3 * i + 1] / 224)
            return PoseLandmark(x: projected.x, y: projected.y, z: raw[3 * i + 2] / 224 * region.width, confidence: score)
        }
        return HandLandmarks(landmarks: points, score: score, mirroredLeftProbability: outputs[2].scalars[0], region: region)
    }

    /// Up to `maximumHands` hands in `image`, most confident detection first.
    public func estimate(_ image: RGBImage) -> [HandLandmarks] {
        detections(in: image).prefix(maximumHands).compactMap {
            landmarks(in: image, region: region(for: $0, imageWidth: image.width, imageHeight: image.height))
        }
    }
}
