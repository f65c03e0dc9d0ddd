import CoachData
import CoachRuntime
import Foundation
import XCTest

/// The observations each frame of a rendered sequence produced.
struct DetectionRun {
    var perFrame: [[TrajectoryObservation]]

    var all: [TrajectoryObservation] { perFrame.flatMap { $0 } }
    var identifiers: [UUID] {
        var seen: [UUID] = []
        for observation in all where !seen.contains(observation.uuid) { seen.append(observation.uuid) }
        return seen
    }
    /// The last observation of trajectory `uuid`, with its frame index.
    func last(of uuid: UUID) -> (frame: Int, observation: TrajectoryObservation)? {
        for frame in perFrame.indices.reversed() {
            if let observation = perFrame[frame].first(where: { $0.uuid == uuid }) { return (frame, observation) }
        }
        return nil
    }
}

/// Runs `detector` over frames `0..<count` of `renderer`.
func runDetection(_ detector: TrajectoryDetector, _ renderer: FrameSequenceRenderer, frames count: Int,
         flights: [Flight] = [], pendulums: [Pendulum] = [],
         extraDiscs: (Int) -> [(x: Double, y: Double, radius: Double, color: RGBColor)] = { _ in [] }) throws -> DetectionRun {
    var perFrame: [[TrajectoryObservation]] = []
    for index in 0..<count {
        let image = renderer.frame(index, flights: flights, pendulums: pendulums, extraDiscs: extraDiscs(index))
        perFrame.append(try detector.processStrictly(image, at: renderer.time(ofFrame: index)))
    }
    return DetectionRun(perFrame: perFrame)
}

/// The largest distance in pixels between the observation's detected points and `flight`'s true
/// centres in the frames `frames` (one per point, oldest first).
func largestPixelError(_ observation: TrajectoryObservation, _ flight: Flight, frames: [Int],
                       renderer: FrameSequenceRenderer) -> Double {
    var largest = 0.0
    for (point, frame) in zip(observation.detectedPoints, frames) {
        let pixel = observation.imagePoint(point, imageWidth: renderer.width, imageHeight: renderer.height)
        let truth = flight.center(at: renderer.time(ofFrame: frame))
        largest = max(largest, ((pixel.x - truth.x) * (pixel.x - truth.x) + (pixel.y - truth.y) * (pixel.y - truth.y)).squareRoot())
    }
    return largest
}
