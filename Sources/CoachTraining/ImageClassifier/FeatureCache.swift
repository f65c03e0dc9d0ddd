import CoachModels
import Foundation

/// An on-disk cache of backbone features, so re-training (other hyper-parameters, or after
/// an interruption) does not recompute them.
///
/// Each entry is one image view's feature vector, stored under the SHA-256 of: the image
/// file's SHA-256, the backbone's SHA-256, the input encoding, and the view (the
/// augmentation and its per-view seed) — so a changed file, backbone, preprocessing or
/// augmentation never reads a stale entry. Files are `<directory>/<first 2 hex>/<key>.f32`:
/// an 8-byte magic `COACHF32`, a little-endian UInt32 count, then the float32 values.
/// Writes are atomic (temporary file, then rename), so concurrent trainers and
/// interrupted runs never leave a partial entry; an unreadable entry counts as a miss.
public struct FeatureCache: Sendable {
    /// The cache folder.
    public let directory: URL

    static let magic = Array("COACHF32".utf8)

    /// A cache in `directory` (created on first write).
    public init(directory: URL) {
        self.directory = directory
    }

    /// `$COACH_CACHE_DIR/features`, else `$XDG_CACHE_HOME/coach/features`, else
    /// `~/.cache/coach/features`.
    public static func defaultDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let coach = environment["COACH_CACHE_DIR"], !coach.isEmpty {
            return URL(fileURLWithPath: coach).appendingPathComponent("features")
        }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("coach/features")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/coach/features")
    }

    /// The entry key for one view of one image file.
    public static func key(fileSHA256: String, backboneSHA256: String, encoding: ImageInputEncoding,
                           layers: ImageFeatureLayers = .head, view: String) -> String {
        // The head's features keep the keys they had before other layers existed.
        let layerKey = layers == .head ? "" : "|\(layers.rawValue)"
        let text = "coach-features-v3|forward-\(EfficientNetLite0.computationVersion)|\(fileSHA256)|\(backboneSHA256)|\(encoding.shortSide)/\(encoding.cropSize)/\(encoding.mean)/\(encoding.standardDeviation)|\(view)\(layerKey)"
        return (try? FileDigest.sha256(of: Array(text.utf8))) ?? text
    }

    private func url(for key: String) -> URL {
        directory.appendingPathComponent(String(key.prefix(2))).appendingPathComponent("\(key).f32")
    }

    /// The cached features for `key`, or nil (absent, unreadable or not `count` values long).
    public func load(_ key: String, count: Int) -> [Float]? {
        guard let data = FileManager.default.contents(atPath: url(for: key).path),
              data.count == 12 + 4 * count, Array(data.prefix(8)) == FeatureCache.magic else { return nil }
        let stored = data.subdata(in: 8..<12).withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        guard Int(stored) == count else { return nil }
        var values = [Float](repeating: 0, count: count)
        data.subdata(in: 12..<data.count).withUnsafeBytes { raw in
            for index in 0..<count {
                values[index] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
            }
        }
        return values.allSatisfy(\.isFinite) ? values : nil
    }

    /// Stores `values` under `key` atomically; throws when the folder or file cannot be written.
    public func store(_ key: String, values: [Float]) throws {
        let target = url(for: key)
        let folder = target.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var bytes = FeatureCache.magic
        withUnsafeBytes(of: UInt32(values.count).littleEndian) { bytes += $0 }
        bytes.reserveCapacity(12 + 4 * values.count)
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        let temporary = folder.appendingPathComponent(".\(key).\(ProcessInfo.processInfo.processIdentifier).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(bytes)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        if rename(temporary.path, target.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path, NSLocalizedDescriptionKey: reason])
        }
    }
}
