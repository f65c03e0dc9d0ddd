import CoachData
import CoachModels
import Foundation

/// One cached training or evaluation view: the backbone maps of an (augmented,
/// letterboxed) image and its boxes in input pixels.
public struct DetectorTrainingView: Sendable {
    /// The image's index in its dataset.
    public var imageIndex: Int
    /// 0 for the unaugmented image, 1… for augmented views.
    public var viewIndex: Int
    /// The cached backbone maps.
    public var maps: DetectorFeatureMaps
    /// The boxes in input pixels with their class indices.
    public var target: DetectionTarget
    /// Where the (decoded, possibly reduced) image sits in the input canvas.
    public var transform: LetterboxTransform
    /// Multiply decoded-image x coordinates by this to get full-size ones.
    public var fullScaleX: Double
    /// Multiply decoded-image y coordinates by this to get full-size ones.
    public var fullScaleY: Double

    /// A view from its parts.
    public init(imageIndex: Int, viewIndex: Int, maps: DetectorFeatureMaps, target: DetectionTarget,
                transform: LetterboxTransform, fullScaleX: Double, fullScaleY: Double) {
        self.imageIndex = imageIndex
        self.viewIndex = viewIndex
        self.maps = maps
        self.target = target
        self.transform = transform
        self.fullScaleX = fullScaleX
        self.fullScaleY = fullScaleY
    }
}

extension DetectorTrainingView: WireCodable {
    public func write(to writer: inout WireWriter) {
        writer.write(imageIndex)
        writer.write(viewIndex)
        for map in [maps.stride32, maps.stride16] {
            writer.write(map.count)
            map.bits.withUnsafeBytes { writer.append($0) }
        }
        writer.write(target.classIndices.count)
        for (box, label) in zip(target.boxes, target.classIndices) {
            writer.write(label)
            for value in [box.minX, box.minY, box.maxX, box.maxY] { writer.write(value) }
        }
        for value in [transform.originalWidth, transform.originalHeight, transform.width, transform.height,
                      transform.contentWidth, transform.contentHeight, transform.offsetX, transform.offsetY] {
            writer.write(value)
        }
        writer.write(fullScaleX)
        writer.write(fullScaleY)
    }

    public init(from reader: inout WireReader) throws {
        imageIndex = try reader.readInt()
        viewIndex = try reader.readInt()
        var compact: [CompactFloats] = []
        for _ in 0..<2 {
            let count = try reader.readInt()
            let bytes = try reader.take(2 * max(0, count))
            compact.append(CompactFloats(bits: bytes.withUnsafeBytes { raw in
                (0..<count).map { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
            }))
        }
        maps = DetectorFeatureMaps(stride32: compact[0], stride16: compact[1])
        let boxCount = try reader.readInt()
        guard boxCount >= 0, boxCount < 1 << 24 else { throw WireError.truncated }
        var boxes: [BoundingBox] = [], labels: [Int] = []
        for _ in 0..<boxCount {
            labels.append(try reader.readInt())
            boxes.append(BoundingBox(minX: try reader.readDouble(), minY: try reader.readDouble(),
                                     maxX: try reader.readDouble(), maxY: try reader.readDouble()))
        }
        target = DetectionTarget(boxes: boxes, classIndices: labels)
        let t = try (0..<8).map { _ in try reader.readInt() }
        transform = LetterboxTransform(originalWidth: t[0], originalHeight: t[1], width: t[2], height: t[3],
                                       contentWidth: t[4], contentHeight: t[5], offsetX: t[6], offsetY: t[7])
        fullScaleX = try reader.readDouble()
        fullScaleY = try reader.readDouble()
    }
}

/// Builds cached views: decodes each image once (JPEGs at reduced scale when large),
/// augments it with a generator derived from (seed, image, view) alone — so any subset
/// of views can be rebuilt identically, e.g. on resume — letterboxes, and runs the
/// backbone in batches.
struct DetectorViewBuilder {
    /// The backbone pass (nil when only inputs are made, see `makeView`).
    let extractor: DetectorFeatureExtractor?
    let encoding: DetectorInputEncoding
    let classIndex: [String: Int]
    let pipeline: AugmentationPipeline
    let seed: UInt64

    /// Views `0..<viewsPerImage` of the images of `images` at `range` (all by default; view 0 unaugmented).
    func build(_ images: [AnnotatedImage], range: Range<Int>? = nil, viewsPerImage: Int, phase: String,
               observer: TrainingObserver?) throws -> [DetectorTrainingView] {
        let range = range ?? images.indices
        let total = range.count * viewsPerImage
        var meter = ProgressMeter(phase: phase, total: total)
        var result: [DetectorTrainingView] = []
        result.reserveCapacity(total)
        let imagesPerChunk = max(1, 16 / viewsPerImage)
        var start = range.lowerBound
        while start < range.upperBound {
            let chunk = Array(start..<min(range.upperBound, start + imagesPerChunk))
            var encoded: [(index: Int, view: Int, pixels: [Float], target: DetectionTarget, transform: LetterboxTransform,
                           scaleX: Double, scaleY: Double)] = []
            for index in chunk {
                let image = images[index]
                let (decoded, boxes, labels) = try load(image)
                let content = try viewsPerImage > 1 && !pipeline.isEmpty ? contentImage(decoded.image) : nil
                let jobs = viewsPerImage
                var slots = [Result<(pixels: [Float], target: DetectionTarget, transform: LetterboxTransform), Error>?](
                    repeating: nil, count: jobs)
                slots.withUnsafeMutableBufferPointer { buffer in
                    let base = buffer.baseAddress!
                    DispatchQueue.concurrentPerform(iterations: jobs) { view in
                        base[view] = Result(catching: {
                            try makeView(decoded.image, content: content, boxes: boxes, labels: labels, imageIndex: index, view: view)
                        })
                    }
                }
                for (view, slot) in slots.enumerated() {
                    let made = try slot!.get()
                    encoded.append((index, view, made.pixels, made.target, made.transform,
                                    1 / decoded.scaleX, 1 / decoded.scaleY))
                }
            }
            let maps = extractor?.maps(of: encoded.map(\.pixels)) ?? []
            for (item, map) in zip(encoded, maps) {
                result.append(DetectorTrainingView(imageIndex: item.index, viewIndex: item.view, maps: map, target: item.target,
                                                   transform: item.transform, fullScaleX: item.scaleX, fullScaleY: item.scaleY))
            }
            meter.update(result.count, observer: observer)
            start += imagesPerChunk
        }
        return result
    }

    /// The decoded image (reduced when much larger than the input) and its boxes in its pixels.
    func load(_ image: AnnotatedImage) throws -> (DecodedImage, [BoundingBox], [Int]) {
        let decoded = try ImageDecoder.decode(contentsOf: image.url, options: encoding.decodingOptions)
        var boxes: [BoundingBox] = [], labels: [Int] = []
        for object in image.objects {
            guard let label = classIndex[object.label] else { continue }
            let b = object.box
            boxes.append(BoundingBox(minX: b.minX * decoded.scaleX, minY: b.minY * decoded.scaleY,
                                     maxX: b.maxX * decoded.scaleX, maxY: b.maxY * decoded.scaleY))
            labels.append(label)
        }
        return (decoded, boxes, labels)
    }

    /// The image resized (aspect kept) to the size it has inside the input canvas, in 8 bits:
    /// augmented views are made from it, so augmentation costs the input's pixels, not the photo's.
    func contentImage(_ image: RGBImage) throws -> RGBImage {
        let c = encoding.configuration
        let placement = ImageResizing.letterboxTransform(width: image.width, height: image.height,
                                                         canvasWidth: c.inputWidth, canvasHeight: c.inputHeight)
        return try image.resized(width: placement.contentWidth, height: placement.contentHeight).rgbImage()
    }

    /// View `view` of one decoded image: view 0 is letterboxed exactly as at inference;
    /// the others augment `content` (the image at canvas scale) and then letterbox it.
    /// Returns the encoded input, the boxes in input pixels, and the placement of the
    /// decoded image in the canvas (for view 0; augmented views are never mapped back).
    func makeView(_ image: RGBImage, content: RGBImage?, boxes: [BoundingBox], labels: [Int], imageIndex: Int, view: Int) throws
        -> (pixels: [Float], target: DetectionTarget, transform: LetterboxTransform)
    {
        guard view > 0, let content else {
            let (pixels, transform) = try encoding.encode(image)
            return (pixels, DetectionTarget(boxes: boxes.map { Self.map($0, transform) }, classIndices: labels), transform)
        }
        let scaleX = Double(content.width) / Double(image.width), scaleY = Double(content.height) / Double(image.height)
        let contentBoxes = boxes.map { box in
            BoundingBox(minX: box.minX * scaleX, minY: box.minY * scaleY, maxX: box.maxX * scaleX, maxY: box.maxY * scaleY)
        }
        var generator = SeededGenerator(seed: DetectorSeeds.mix(seed, 1, UInt64(imageIndex), UInt64(view)))
        let augmented = pipeline.apply(to: AugmentationSample(image: content, boxes: contentBoxes), using: &generator)
        let (pixels, transform) = try encoding.encode(augmented.image)
        let target = DetectionTarget(boxes: augmented.boxes.map { Self.map($0, transform) },
                                     classIndices: augmented.boxSourceIndices.map { labels[$0] })
        return (pixels, target, transform)
    }

    /// A box through a letterbox placement.
    static func map(_ box: BoundingBox, _ transform: LetterboxTransform) -> BoundingBox {
        let a = transform.letterboxPoint(x: box.minX, y: box.minY), b = transform.letterboxPoint(x: box.maxX, y: box.maxY)
        return BoundingBox(minX: a.x, minY: a.y, maxX: b.x, maxY: b.y)
    }
}

/// Seeds derived from the run's seed and a few integers (SplitMix64 finaliser), so each
/// random decision has its own independent, reproducible stream.
enum DetectorSeeds {
    static func mix(_ values: UInt64...) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        for v in values {
            h ^= v &+ 0x9E37_79B9_7F4A_7C15 &+ (h << 6) &+ (h >> 2)
            var z = h
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            h = z ^ (z >> 31)
        }
        return h
    }
}

extension DetectorViewBuilder {
    /// `build` over the job's ranks: after checking that every rank sees the same images, each
    /// builds the views of its share (contiguous, in file order) and every rank gets all of them, in
    /// a single process's order and with its bits (a view's augmentation derives from the seed,
    /// the image's index and the view alone). Rank 0's progress is scaled to the whole job.
    func build(_ images: [AnnotatedImage], viewsPerImage: Int, phase: String, observer: TrainingObserver?,
               communicator: Communicator) throws -> [DetectorTrainingView] {
        try communicator.checkSameEverywhere(images.map { "\($0.url.lastPathComponent) \($0.objects.count)" },
                                             what: "annotated images")
        return try communicator.gatherShares(count: images.count) { share in
            let scale = Double(images.count) / Double(max(1, share.count))
            return try build(images, range: share, viewsPerImage: viewsPerImage, phase: phase,
                             observer: observer.map { ImageFeatureExtraction.scaledProgress($0, by: scale) })
        }
    }
}
