import CoachData
import CoachModels
import CoachRandom
import Foundation

/// One view of an image whose features the trainer needs: the image as it is, or one
/// augmented copy.
struct ImageView: Equatable, Sendable {
    /// Index into `augmentations` of the extraction, or nil for the image as it is.
    var augmentationIndex: Int?
}

/// An image file to extract features from, identified by its content hash.
struct ImageSource: Sendable {
    var url: URL
    var fileSHA256: String
}

/// Backbone features of image views, with where each row came from.
struct ExtractedFeatures {
    /// Values per row (`ImageFeatureLayers.width`).
    var width = EfficientNetLite0.featureCount
    /// Rows × `width` features.
    var features: [Float] = []
    /// For each row, the index of its image in the source list.
    var rowImages: [Int] = []
    /// For each row, its view.
    var rowViews: [ImageView] = []
    /// Images that could not be decoded (or augmented), with the reason; none of their views has rows.
    var failures: [(imageIndex: Int, message: String)] = []
    /// Views read from the on-disk cache.
    var cacheHits = 0
    /// Views computed by the backbone.
    var computed = 0
    /// Cache writes that failed (the first message), if any.
    var cacheWriteFailure: String?

    /// Rows moved out by `takeLeadingRows` (the first `features` row is row `movedRows`).
    private(set) var movedRows = 0

    /// The features of the rows at `rows` (none of them moved out), as a [rows.count, width] tensor.
    func tensor(rows: [Int]) -> Tensor {
        var scalars: [Float] = []
        scalars.reserveCapacity(rows.count * width)
        for row in rows {
            precondition(row >= movedRows, "row \(row) was moved out")
            scalars += features[((row - movedRows) * width)..<((row - movedRows + 1) * width)]
        }
        return Tensor(shape: [rows.count, width], scalars: scalars)
    }

    /// Moves the first `count` rows out as a [count, width] tensor, without copying them (the
    /// rows after them are copied into storage of their own); their indices stay valid.
    mutating func takeLeadingRows(_ count: Int) -> Tensor {
        precondition(movedRows == 0 && count * width <= features.count)
        let split = count * width
        var leading = features
        features = Array(leading[split...])
        leading.removeSubrange(split...)
        movedRows = count
        return Tensor(shape: [count, width], scalars: leading)
    }
}

/// Computes backbone features for image views, once each: views found in the on-disk cache
/// are read, the rest decoded (each image once for all its views), augmented, encoded in
/// parallel and run through the backbone in batches, then stored in the cache.
struct ImageFeatureExtraction {
    let extractor: ImageFeatureExtractor
    let cache: FeatureCache?
    /// One single-step pipeline per augmentation (see `ImageClassifierTrainingConfiguration`).
    let augmentations: [AugmentationPipeline]
    /// The run's seed; each augmented view's randomness derives from it, the file's hash and the augmentation.
    let seed: UInt64

    /// The cache's description of `view` of an image with hash `fileSHA256`.
    func viewKey(_ view: ImageView, fileSHA256: String) -> String {
        guard let index = view.augmentationIndex else { return "original" }
        return "\(augmentations[index].steps[0].augmentation)#seed=\(viewSeed(index, fileSHA256: fileSHA256))"
    }

    /// The seed of augmented view `index` of a file: independent of file order and of the other views.
    func viewSeed(_ index: Int, fileSHA256: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a over the name and the file hash
        for byte in (augmentations[index].steps[0].augmentation.name + "|" + fileSHA256).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        var generator = SeededGenerator(seed: seed ^ hash)
        return generator.next()
    }

    /// Features for every view of every source; `views(i)` lists image i's views.
    func run(sources: [ImageSource], views: (Int) -> [ImageView], phase: String,
             observer: TrainingObserver?) -> ExtractedFeatures {
        let width = extractor.layers.width
        var result = ExtractedFeatures()
        result.width = width
        // Every view's row in one buffer laid out in request order, written in place as rows are read
        // from the cache or computed: the features are held once (no per-row arrays, no growing copy).
        var rowImages: [Int] = [], rowViews: [ImageView] = [], keys: [String] = []
        for (imageIndex, _) in sources.enumerated() {
            for view in views(imageIndex) {
                rowImages.append(imageIndex)
                rowViews.append(view)
            }
        }
        var buffer = [Float](repeating: 0, count: rowImages.count * width)
        var missingByImage: [Int: [Int]] = [:], missingOrder: [Int] = []
        for row in rowImages.indices {
            let imageIndex = rowImages[row], source = sources[imageIndex]
            let key = FeatureCache.key(fileSHA256: source.fileSHA256, backboneSHA256: extractor.backbone.sha256,
                                       encoding: extractor.encoding, layers: extractor.layers, view: viewKey(rowViews[row], fileSHA256: source.fileSHA256))
            keys.append(key)
            if let cached = cache?.load(key, count: width) {
                buffer.replaceSubrange((row * width)..<((row + 1) * width), with: cached)
                result.cacheHits += 1
            } else {
                if missingByImage[imageIndex] == nil { missingOrder.append(imageIndex) }
                missingByImage[imageIndex, default: []].append(row)
            }
        }
        let totalMissing = missingByImage.values.reduce(0) { $0 + $1.count }
        var meter = ProgressMeter(phase: phase, total: totalMissing)
        var failed: [Int: String] = [:]
        var done = 0, position = 0
        if totalMissing > 0 { meter.update(0, observer: observer) }
        while position < missingOrder.count {
            // Take whole images until the chunk holds enough views to decode in parallel.
            var chunk: [Int] = [], chunkViews = 0
            while position < missingOrder.count && (chunkViews < max(16, extractor.batchSize) || chunk.isEmpty) {
                let image = missingOrder[position]
                chunk.append(image)
                chunkViews += missingByImage[image]!.count
                position += 1
            }
            let prepared = prepare(chunk: chunk, sources: sources, missingRows: missingByImage, rowViews: rowViews)
            var encoded: [[Float]] = [], encodedRows: [Int] = []
            for (offset, image) in chunk.enumerated() {
                switch prepared[offset] {
                case let .failure(message):
                    failed[image] = message
                case let .success(views):
                    for (row, values) in views {
                        encoded.append(values)
                        encodedRows.append(row)
                    }
                }
            }
            if !encoded.isEmpty {
                let features = extractor.features(encoded: encoded)
                for (index, row) in encodedRows.enumerated() {
                    let values = features.scalars[(index * width)..<((index + 1) * width)]
                    buffer.replaceSubrange((row * width)..<((row + 1) * width), with: values)
                    if let cache {
                        do { try cache.store(keys[row], values: Array(values)) } catch {
                            if result.cacheWriteFailure == nil {
                                result.cacheWriteFailure = "\(cache.directory.path): \((error as? LocalizedError)?.errorDescription ?? "\(error)")"
                            }
                        }
                    }
                }
                result.computed += encoded.count
            }
            done += chunkViews
            meter.update(done, observer: observer)
        }
        result.failures = failed.keys.sorted().map { ($0, failed[$0]!) }
        // The failed images' rows leave the buffer: the others move up in place.
        var kept = 0
        for row in rowImages.indices where failed[rowImages[row]] == nil {
            if kept != row {
                buffer.withUnsafeMutableBufferPointer { values in
                    let base = values.baseAddress!
                    (base + kept * width).update(from: base + row * width, count: width)
                }
            }
            result.rowImages.append(rowImages[row])
            result.rowViews.append(rowViews[row])
            kept += 1
        }
        buffer.removeSubrange((kept * width)...)
        result.features = buffer
        return result
    }

    private enum Prepared {
        case success([(row: Int, values: [Float])])
        case failure(String)
    }

    /// Decodes each image of `chunk` once and encodes its missing views, images in parallel.
    private func prepare(chunk: [Int], sources: [ImageSource], missingRows: [Int: [Int]],
                         rowViews: [ImageView]) -> [Prepared] {
        var prepared = [Prepared](repeating: .failure("not processed"), count: chunk.count)
        prepared.withUnsafeMutableBufferPointer { output in
            let buffer = output
            parallelFor(chunk.count, minimumWork: 2) { offset in
                let image = chunk[offset]
                let source = sources[image]
                do {
                    let decoded = try extractor.encoding.decode(contentsOf: source.url)
                    var views: [(row: Int, values: [Float])] = []
                    for row in missingRows[image]! {
                        var pixels = decoded
                        if let index = rowViews[row].augmentationIndex {
                            var generator = SeededGenerator(seed: viewSeed(index, fileSHA256: source.fileSHA256))
                            pixels = augmentations[index].apply(to: AugmentationSample(image: decoded), using: &generator).image
                        }
                        views.append((row, try extractor.encoding.encode(pixels)))
                    }
                    buffer[offset] = .success(views)
                } catch {
                    buffer[offset] = .failure((error as? LocalizedError)?.errorDescription ?? "\(error)")
                }
            }
        }
        return prepared
    }
}
