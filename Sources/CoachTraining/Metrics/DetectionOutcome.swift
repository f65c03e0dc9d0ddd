import CoachData
import Foundation

/// What a detector got right and wrong on one image at one confidence threshold: each confident
/// prediction matched (greedily by confidence, as `AveragePrecision.match` does) to an unmatched
/// true box of its class with IoU at least the matching IoU, or not; each true box found or missed.
/// `coach evaluate --mistakes` draws the images with most mistakes from it.
public struct DetectionOutcome: Equatable, Sendable {
    /// The image's position among the evaluated images.
    public var imageIndex: Int
    /// Indices into the image's predictions of those that matched a true box of their class.
    public var correct: [Int]
    /// Indices into the image's predictions of confident ones that matched no true box of their
    /// class (a box where there is none, a box of the wrong class, a second box on one object, or a box
    /// placed too far off).
    public var wrong: [Int]
    /// Indices into the image's true boxes that no confident prediction of their class matched.
    public var missed: [Int]

    /// Mistakes on the image: wrong predictions and missed boxes.
    public var mistakeCount: Int { wrong.count + missed.count }

    /// The outcome of `image` (at position `imageIndex`) for predictions with at least
    /// `confidenceThreshold`, matched at `matchingIoU`.
    public init(_ image: EvaluatedImage, imageIndex: Int, confidenceThreshold: Double, matchingIoU: Double = 0.5) {
        self.imageIndex = imageIndex
        let confident = image.predictions.indices.filter { image.predictions[$0].confidence >= confidenceThreshold }
            .sorted { a, b in
                let (x, y) = (image.predictions[a].confidence, image.predictions[b].confidence)
                return x != y ? x > y : a < b
            }
        var used = [Bool](repeating: false, count: image.groundTruth.count)
        var correct: [Int] = [], wrong: [Int] = []
        for p in confident {
            let prediction = image.predictions[p]
            if let best = image.closestTruth(to: prediction.box, classIndex: prediction.classIndex, used: used),
               best.iou >= matchingIoU {
                used[best.index] = true
                correct.append(p)
            } else {
                wrong.append(p)
            }
        }
        self.correct = correct.sorted()
        self.wrong = wrong.sorted()
        missed = used.indices.filter { !used[$0] }
    }

    /// The outcomes of `images` with any mistake, most mistakes first (ties: the surest wrong
    /// prediction first, then image order).
    public static func mistakes(in images: [EvaluatedImage], confidenceThreshold: Double,
                                matchingIoU: Double = 0.5) -> [DetectionOutcome] {
        let outcomes = images.enumerated().map {
            DetectionOutcome($1, imageIndex: $0, confidenceThreshold: confidenceThreshold, matchingIoU: matchingIoU)
        }.filter { $0.mistakeCount > 0 }
        func surest(_ outcome: DetectionOutcome) -> Double {
            outcome.wrong.map { images[outcome.imageIndex].predictions[$0].confidence }.max() ?? 0
        }
        return outcomes.sorted { a, b in
            if a.mistakeCount != b.mistakeCount { return a.mistakeCount > b.mistakeCount }
            let (x, y) = (surest(a), surest(b))
            return x != y ? x > y : a.imageIndex < b.imageIndex
        }
    }
}
