import CoachModels
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// The on-disk feature cache: round trip, keys, and damaged entries.
final class FeatureCacheTests: XCTestCase {
    func testStoresAndLoadsAndRejectsDamagedEntries() throws {
        let directory = try temporaryDirectory(self)
        let cache = FeatureCache(directory: directory)
        let key = FeatureCache.key(fileSHA256: "aa", backboneSHA256: "bb", encoding: .efficientNetLite0, view: "original")
        XCTAssertNil(cache.load(key, count: 4))
        try cache.store(key, values: [1, -2.5, 3e-7, .greatestFiniteMagnitude])
        XCTAssertEqual(cache.load(key, count: 4), [1, -2.5, 3e-7, .greatestFiniteMagnitude])
        XCTAssertNil(cache.load(key, count: 5), "a different length is a miss")
        // Keys change with every input of the key.
        let others = [FeatureCache.key(fileSHA256: "ab", backboneSHA256: "bb", encoding: .efficientNetLite0, view: "original"),
                      FeatureCache.key(fileSHA256: "aa", backboneSHA256: "bc", encoding: .efficientNetLite0, view: "original"),
                      FeatureCache.key(fileSHA256: "aa", backboneSHA256: "bb",
                                       encoding: ImageInputEncoding(shortSide: 300, cropSize: 224, mean: 127, standardDeviation: 128), view: "original"),
                      FeatureCache.key(fileSHA256: "aa", backboneSHA256: "bb", encoding: .efficientNetLite0, view: "flip#seed=1"),
                      FeatureCache.key(fileSHA256: "aa", backboneSHA256: "bb", encoding: .efficientNetLite0, layers: .headAndStride16,
                                       view: "original")]
        XCTAssertEqual(Set(others + [key]).count, 6)
        // A truncated entry is a miss, not a crash; no temporary files are left behind.
        let files = FileManager.default.enumerator(atPath: directory.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".f32") }
        XCTAssertEqual(files.count, 1)
        let entry = directory.appendingPathComponent(files[0])
        let bytes = try Data(contentsOf: entry)
        try bytes.prefix(bytes.count - 2).write(to: entry)
        XCTAssertNil(cache.load(key, count: 4))
        XCTAssertFalse(FileManager.default.enumerator(atPath: directory.path)!.contains { ($0 as? String)?.hasSuffix(".tmp") == true })
    }
}
