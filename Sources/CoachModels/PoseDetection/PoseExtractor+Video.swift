import CoachData
import Foundation

extension PoseExtractor {
    /// Feeds every frame of the video at `url` (upright, at its own timestamps) to `add`, the next
    /// frames decoding meanwhile on a thread of their own; returns
    /// the video's average frame rate and, when the decoder met damaged data, what it said.
    func extractVideo(_ url: URL, add: (RGBImage, Double) -> Void) throws -> (frameRate: Double?, damage: String?) {
        let decoder = try VideoDecoder(contentsOf: url)
        try decoder.forEachFrame { frame in add(frame.image, frame.time) }
        return (decoder.frameRate > 0 ? decoder.frameRate : nil, decoder.damageReport)
    }
}
