import CoachData
import CoachNN
import Foundation

/// The shared pretrained backbone loaded from Coach's model file, with its identity
/// (the SHA-256 of the file) and the image preprocessing it expects.
public struct Backbone {
    /// The network.
    public let network: EfficientNetLite0
    /// The model file it was loaded from.
    public let url: URL
    /// The lowercase hex SHA-256 of that file; head models record it.
    public let sha256: String
    /// The backbone's name (`efficientnet-lite0`).
    public let name: String

    /// The file name `make build` writes under `models/`.
    public static let defaultFileName = "efficientnet-lite0.h5"

    /// Loads a backbone file written by `coach import-backbone`.
    public static func load(from url: URL) throws -> Backbone {
        let file = try ModelFile.read(from: url)
        guard file.metadata.task == .backbone else {
            throw BackboneError.notABackbone(path: url.path, task: file.metadata.task.rawValue)
        }
        // Every image model's numbers come from these weights: a copy nothing vouches for is not
        // used (issue 14: a bit-flipped old backbone classified a photo as "100 % sorrel").
        guard file.weightsAreChecked else { throw BackboneError.unverified(path: url.path) }
        return Backbone(network: try EfficientNetLite0(weights: file.tensors), url: url,
                        sha256: try FileDigest.sha256(ofFileAt: url), name: file.metadata.name ?? "efficientnet-lite0")
    }

    /// Where to look for the backbone when none is given: `$COACH_BACKBONE`, then
    /// `models/efficientnet-lite0.h5` under the current directory, then beside the
    /// executable's package (`<exe>/../../../models/…`, for `.build/release/coach`).
    public static func defaultLocation() -> URL? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["COACH_BACKBONE"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        var candidates = [URL(fileURLWithPath: fm.currentDirectoryPath).appendingPathComponent("models/\(defaultFileName)")]
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent("models/\(defaultFileName)"))
            dir = dir.deletingLastPathComponent()
        }
        return candidates.first { fm.fileExists(atPath: $0.path) }
    }

    /// The reference preprocessing: short side to `resizeShortSide` (anti-aliased
    /// bilinear), centre crop `size`×`size`, then (rgb − 127) / 128, as [1, size, size, 3].
    public static func preprocess(_ image: RGBImage, size: Int = 224, resizeShortSide: Int = 256) throws -> Tensor {
        let cropped = try image.resizedAndCenterCropped(shortSide: resizeShortSide, cropWidth: size, cropHeight: size)
        return Tensor(shape: [1, size, size, 3], scalars: cropped.normalized(subtracting: 127, dividingBy: 128).values)
    }

    /// Decodes an image file for the classifier path (JPEGs decoded at reduced scale when
    /// that still leaves the short side ≥ `resizeShortSide`) and preprocesses it.
    public static func preprocessFile(_ url: URL, size: Int = 224, resizeShortSide: Int = 256) throws -> Tensor {
        let decoded = try ImageDecoder.decode(contentsOf: url, options: ImageDecodingOptions(minimumShortSide: resizeShortSide))
        return try preprocess(decoded.image, size: size, resizeShortSide: resizeShortSide)
    }
}
