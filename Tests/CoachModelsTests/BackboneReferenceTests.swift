import CoachData
import CoachModels
import Foundation
import XCTest
import TestSupport

/// The backbone against the numpy reference in shared/reference/efficientnet-lite0.
final class BackboneReferenceTests: XCTestCase {
    struct Reference: Decodable {
        struct Image: Decodable {
            struct Prediction: Decodable { let `class`: Int; let name: String; let probability: Double }
            let name: String, file: String, input: String, features: String, logits: String
            let top5: [Prediction]
        }
        let images: [Image]
    }

    func loadReference() throws -> (URL, Reference) {
        let dir = try SharedData.require("reference/efficientnet-lite0")
        let data = try Data(contentsOf: dir.appendingPathComponent("reference.json"))
        return (dir, try JSONDecoder().decode(Reference.self, from: data))
    }

    func floats(_ url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        return data.withUnsafeBytes { raw in (0..<(data.count / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) } }
    }

    func testFeaturesAndLogitsMatchTheReferenceFromItsInputTensors() throws {
        let backbone = try BackboneFixture.load()
        let (dir, reference) = try loadReference()
        XCTAssertEqual(reference.images.count, 4)
        // All four as one batch: batching must not change any image's result.
        let inputs = try reference.images.map { try floats(dir.appendingPathComponent($0.input)) }
        let batch = Tensor(shape: [4, 224, 224, 3], scalars: inputs.flatMap { $0 })
        let features = backbone.network.features(batch)
        let logits = backbone.network.logits(features: features)
        for (i, image) in reference.images.enumerated() {
            let expectedFeatures = try floats(dir.appendingPathComponent(image.features))
            let expectedLogits = try floats(dir.appendingPathComponent(image.logits))
            let f = Array(features.scalars[(i * 1280)..<((i + 1) * 1280)])
            let l = Array(logits.scalars[(i * 1000)..<((i + 1) * 1000)])
            let featureError = maxAbsoluteDifference(f, expectedFeatures)
            let logitError = maxAbsoluteDifference(l, expectedLogits)
            XCTAssertLessThanOrEqual(featureError, 1e-3, "\(image.name) features")
            XCTAssertLessThanOrEqual(logitError, 1e-3, "\(image.name) logits")
            let top5 = l.enumerated().sorted { $0.element > $1.element }.prefix(5).map(\.offset)
            XCTAssertEqual(top5, image.top5.map(\.class), "\(image.name) top-5 order")
            let probabilities = Tensor(l).softmax().scalars
            XCTAssertEqual(Double(probabilities[top5[0]]), image.top5[0].probability, accuracy: 1e-3)
            XCTAssertEqual(ImageNetClasses.labels[top5[0]], image.top5[0].name)
            print("backbone reference \(image.name): max |Δfeatures| \(featureError), max |Δlogits| \(logitError)")
        }
    }

    func testFromThePhotosThroughCoachsDecodingTopOneAndCosineSimilarity() throws {
        let backbone = try BackboneFixture.load()
        let (dir, reference) = try loadReference()
        for image in reference.images {
            let input = try Backbone.preprocessFile(dir.appendingPathComponent(image.file))
            let features = backbone.network.features(input)
            let logits = backbone.network.logits(features: features)
            XCTAssertEqual(logits.argmax(axis: 1)[0], image.top5[0].class, "\(image.name) top-1")
            let expected = try floats(dir.appendingPathComponent(image.features))
            var dot: Float = 0, a: Float = 0, b: Float = 0
            for (x, y) in zip(features.scalars, expected) { dot += x * y; a += x * x; b += y * y }
            let cosine = dot / (a.squareRoot() * b.squareRoot())
            XCTAssertGreaterThanOrEqual(cosine, 0.99, "\(image.name) cosine similarity")
        }
    }

    func testStrideSixteenAndThirtyTwoMapsHaveTheDocumentedShapes() throws {
        let backbone = try BackboneFixture.load()
        var g = SeededGenerator(seed: 1)
        let x = Tensor.randomUniform([2, 416, 416, 3], lower: -1, upper: 1, using: &g)
        let r = backbone.network.forward(x, keeping: [.stride16, .stride32])
        XCTAssertEqual(r.stride16?.shape, [2, 26, 26, 112])
        XCTAssertEqual(r.stride32?.shape, [2, 13, 13, 1280])
        XCTAssertEqual(r.features.shape, [2, 1280])
        // The pooled features are the mean of the stride-32 map.
        assertClose(Tensor.globalAveragePool(r.stride32!).scalars, r.features.scalars, absolute: 1e-5)
    }

    func testHeadAndStrideSixteenFeaturesAreBothMapsAveraged() throws {
        let backbone = try BackboneFixture.load()
        let (dir, reference) = try loadReference()
        let encoded = try reference.images.map { try floats(dir.appendingPathComponent($0.input)) }
        let wide = ImageFeatureExtractor(backbone: backbone, layers: .headAndStride16).features(encoded: encoded)
        let batched = ImageFeatureExtractor(backbone: backbone, layers: .headAndStride16, batchSize: 3).features(encoded: encoded)
        XCTAssertEqual(wide.shape, [4, 1392])
        XCTAssertEqual(batched, wide, "batches of 3 give the same bytes as one image at a time")
        for (i, image) in reference.images.enumerated() {
            let row = Array(wide.scalars[(i * 1392)..<((i + 1) * 1392)])
            // The first 1,280 are the reference's pooled features.
            XCTAssertLessThanOrEqual(maxAbsoluteDifference(Array(row[..<1280]), try floats(dir.appendingPathComponent(image.features))), 1e-3,
                                     "\(image.name) head features")
            // The other 112 are the stride-16 map's mean over its 14 × 14 cells, summed here in Double.
            let map = backbone.network.forward(Tensor(shape: [1, 224, 224, 3], scalars: encoded[i]), keeping: .stride16).stride16!
            XCTAssertEqual(map.shape, [1, 14, 14, 112])
            let mean = (0..<112).map { channel in
                Float((0..<196).reduce(0.0) { $0 + Double(map.scalars[$1 * 112 + channel]) } / 196)
            }
            XCTAssertLessThanOrEqual(maxAbsoluteDifference(Array(row[1280...]), mean), 1e-5, "\(image.name) stride-16 features")
            XCTAssertGreaterThan(mean.map(abs).max() ?? 0, 0.01, "the stride-16 map is not all zeros")
        }
    }

    func testAnImagesFeaturesDoNotDependOnItsBatch() throws {
        let backbone = try BackboneFixture.load()
        var g = SeededGenerator(seed: 4)
        let batch = Tensor.randomUniform([3, 96, 128, 3], lower: -1, upper: 1, using: &g)
        let together = backbone.network.forward(batch, keeping: [.stride16, .stride32])
        let alone = backbone.network.forward(batch.slice(axis: 0, 1..<2), keeping: [.stride16, .stride32])
        XCTAssertEqual(together.features.slice(axis: 0, 1..<2), alone.features, "bit-identical features")
        XCTAssertEqual(together.stride16!.slice(axis: 0, 1..<2), alone.stride16!)
        XCTAssertEqual(together.stride32!.slice(axis: 0, 1..<2), alone.stride32!)
    }

    func testFeaturesDoNotDependOnTheThreadCount() throws {
        let backbone = try BackboneFixture.load()
        var g = SeededGenerator(seed: 5)
        let batch = Tensor.randomUniform([2, 64, 64, 3], lower: -1, upper: 1, using: &g)
        let original = ComputeThreads.count
        defer { ComputeThreads.set(original) }
        ComputeThreads.set(1)
        let one = backbone.network.forward(batch, keeping: [.stride16])
        ComputeThreads.set(3)
        let three = backbone.network.forward(batch, keeping: [.stride16])
        let threeAlone = backbone.network.forward(batch.slice(axis: 0, 0..<1))
        XCTAssertEqual(one.features, three.features)
        XCTAssertEqual(one.stride16, three.stride16)
        XCTAssertEqual(one.features.slice(axis: 0, 0..<1), threeAlone.features)
    }

    func testIncompatibleWeightsListEveryProblem() throws {
        let backbone = try BackboneFixture.load()
        var weights = try ModelFile.read(from: backbone.url).tensors
        weights["head.conv.weight"] = nil
        weights["stem.bn.scale"] = Tensor.zeros([3])
        XCTAssertThrowsError(try EfficientNetLite0(weights: weights)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? ""
            XCTAssertTrue(text.contains("head.conv.weight") && text.contains("stem.bn.scale"), text)
        }
    }
}
