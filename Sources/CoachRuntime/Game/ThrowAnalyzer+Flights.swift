import CoachData
import CoachModels
import CoachVision
import Foundation

/// A trajectory the game follows until its throw is complete.
struct TrackedFlight {
    var path: FlightPath
    var lastSeenFrame: Int
}

extension ThrowAnalyzer {
    /// In `waitingForPlayer` and `playing`: feeds the trajectory detector, keeps each trajectory's
    /// newest centres, and completes throws whose bag has been gone long enough.
    func follow(_ frame: RGBImage, at time: Double) -> [Event] {
        lastFrame = frame
        guard trajectories != nil else { return [] }
        let observations = trajectories!.process(frame, at: time)
        let width = Double(frame.width), height = Double(frame.height)
        for observation in observations {
            var flight = flights[observation.uuid] ?? TrackedFlight(
                path: FlightPath(times: [], points: [], equationCoefficients: .zero, confidence: 0, radius: 0),
                lastSeenFrame: frameCount)
            flight.lastSeenFrame = frameCount
            // As the app does, only confident observations count: the detector's confidence is over
            // its latest points, so a flight's in-hand start and its stop on landing fall away.
            if observation.confidence >= configuration.minimumTrajectoryConfidence {
                let points = observation.detectedPoints.map { SIMD2($0.x * width, (1 - $0.y) * height) }
                for (pointTime, point) in zip(observation.detectedPointTimes, points)
                where pointTime > (flight.path.times.last ?? -.infinity) {
                    flight.path.times.append(pointTime)
                    flight.path.points.append(point)
                }
                flight.path.confidence = max(flight.path.confidence, observation.confidence)
                flight.path.radius = observation.movingAverageRadius * max(width, height)
                flight.path.equationCoefficients = Self.parabola(through: flight.path.points, width: width, height: height)
                    ?? observation.equationCoefficients
            }
            flights[observation.uuid] = flight
        }
        return completeFlights(frame, at: time)
    }

    /// y = a·x² + b·x + c through `points` (pixels) in Vision's normalised coordinates.
    static func parabola(through points: [SIMD2<Double>], width: Double, height: Double) -> SIMD3<Double>? {
        ParabolaFit(x: points.map { $0.x / width }, y: points.map { 1 - $0.y / height }).map { SIMD3($0.a, $0.b, $0.c) }
    }

    /// Completes the flights not seen for more than `completionFrames` frames (all of them at the
    /// video's end, `time` = ∞), oldest first.
    func completeFlights(_ frame: RGBImage, at time: Double) -> [Event] {
        let due = flights.filter { time == .infinity || frameCount - $0.value.lastSeenFrame > configuration.completionFrames }
        var events: [Event] = []
        for (uuid, flight) in due.sorted(by: { ($0.value.path.times.first ?? 0) < ($1.value.path.times.first ?? 0) }) {
            flights[uuid] = nil
            if let record = record(of: flight.path, frame: frame) {
                // The field with this bag at rest is the next throw's "before".
                reference = frame
                // With a pose source, a throw needs a player: a bag that lands while no one has
                // been seen is not recorded (as the app follows trajectories only once it has a
                // player), so a game that ends with "no player" has no throws either.
                guard poseSource == nil || state == .playing else { continue }
                throwRecords.append(record)
                events.append(.throwCompleted(record))
            }
        }
        return events
    }

    /// The throw a completed flight was, or nil when it was not one (too unsure, or not towards the board).
    func record(of seen: FlightPath, frame: RGBImage) -> ThrowRecord? {
        guard let board, let reference, seen.confidence >= configuration.minimumTrajectoryConfidence else { return nil }
        var path = ThrowMeasurement.withoutLeadingStrays(ThrowMeasurement.inFlight(seen),
                                                         reach: max(seen.radius, 0.01 * Double(frame.width)),
                                                         width: frame.width, height: frame.height)
        path.equationCoefficients = Self.parabola(through: path.points, width: Double(frame.width), height: Double(frame.height))
            ?? seen.equationCoefficients
        guard let first = path.points.first, let last = path.points.last else { return nil }
        // Towards the board: the bag ends nearer the board than it started, and near it.
        let boardCentre = board.centre
        let direction: Double = boardCentre.x >= first.x ? 1 : -1
        guard (last.x - first.x) * direction > 0 else { return nil }
        let span = board.boundingWidth
        guard abs(last.x - boardCentre.x) <= 1.5 * span + abs(boardCentre.x - first.x) * 0.5 else { return nil }

        let width = frame.width, height = frame.height
        // The release. When the detector saw the bag still in the hand, it is the last moment the
        // bag sat at a wrist, and the flight is what follows; otherwise the pose whose wrist best
        // matches the flight's start, traced back along its parabola.
        let firstSeen = path.times.first ?? 0
        var release: (time: Double, pose: [Keypoint?], wrist: Int)?
        if let held = ThrowMeasurement.lastHeld(in: path, poses: poses, reach: max(path.radius, 0.01 * Double(width)),
                                                width: width, height: height),
           path.points.count - held.index - 1 >= 4 {
            release = (held.time, held.pose, held.wrist)
            path.times.removeFirst(held.index + 1)
            path.points.removeFirst(held.index + 1)
            path.equationCoefficients = Self.parabola(through: path.points, width: Double(width), height: Double(height))
                ?? path.equationCoefficients
        } else {
            // The throwing arm first (the other wrist may happen to cross the flight traced back).
            let thrower = ThrowMeasurement.throwingWrist(poses: poses, within: (firstSeen - 0.6)...firstSeen)
            release = ThrowMeasurement.release(of: path, poses: poses, within: (firstSeen - 0.6)...firstSeen,
                                               wrists: thrower.map { [$0] } ?? [4, 7], width: width, height: height)
        }
        let releaseTime = release?.time ?? firstSeen
        var type: (type: String, confidence: Double, topLabel: String)? = nil
        if let classifier {
            type = ThrowMeasurement.throwType(model: classifier, poses: poses, release: releaseTime,
                                              after: configuration.typeWindowSeconds, stride: 3)
        }
        let wrist = ThrowMeasurement.throwingWrist(poses: poses, within: (releaseTime - 0.5)...(releaseTime + 0.2)) ?? release?.wrist
        let angle = release.flatMap { release in
            wrist.flatMap {
                ThrowMeasurement.releaseAngle(pose: release.pose, wrist: $0, direction: direction, width: width, height: height)
            }
        }
        let speed = ThrowMeasurement.speed(of: path, metresPerPixel: board.metresPerPixel, width: width, height: height)
        let landing = ThrowMeasurement.landing(of: seen, now: frame, reference: reference, board: board)
        let points = configuration.rules.points(landing: landing.landing, type: type?.type)
        return ThrowRecord(number: throwRecords.count + 1, releaseTime: releaseTime, endTime: path.times.last ?? releaseTime,
                           type: type?.type, typeConfidence: type?.confidence, classifierTopLabel: type?.topLabel,
                           speed: speed, releaseAngle: angle, landing: landing.landing, landingPoint: landing.point,
                           points: points, runningTotal: total + points, equationCoefficients: path.equationCoefficients,
                           path: path.points, trajectoryConfidence: path.confidence)
    }
}
