import Foundation

extension PoseClipReader {
    /// Reads `{ "frameRate", "joints", "frames": [{ "time", "keypoints" }], "chirality" }` (FORMATS §3.3).
    static func readJSON(_ file: URL, options: PoseReadingOptions, log: inout PoseProblemLog) -> PoseSequence? {
        guard checkFrameRate(options, file: file, log: &log), let root = PoseJSON.read(file, log: &log) else { return nil }
        let before = log.count
        guard let object = root as? [String: Any] else {
            log.add(file, jsonPath: "$", "is \(PoseJSON.typeName(root)): expected an object with \"joints\" and \"frames\"")
            return nil
        }
        var frameRate = options.frameRate
        var declaredRate: Double? = nil
        if let value = object["frameRate"], !(value is NSNull) {
            if let rate = PoseJSON.number(value), let problem = PoseLimits.frameRateProblem(rate) {
                log.add(file, jsonPath: "frameRate", problem)
            } else if let rate = PoseJSON.number(value) {
                frameRate = rate
                declaredRate = rate
            } else {
                log.add(file, jsonPath: "frameRate", "is \(PoseJSON.typeName(value)): expected a positive number of frames per second")
            }
        }
        var chirality: Chirality? = nil
        if let value = object["chirality"], !(value is NSNull) {
            if let text = value as? String, let parsed = Chirality(text: text) {
                chirality = parsed
            } else {
                log.add(file, jsonPath: "chirality", "is \(PoseJSON.typeName(value)): expected \"left\", \"right\" or \"unknown\"")
            }
        }

        // Joints.
        var jointNames: [String] = []
        if let value = object["joints"] {
            if let array = value as? [Any] {
                var seen: [String: Int] = [:]
                for (index, element) in array.enumerated() {
                    guard let name = element as? String, !name.isEmpty else {
                        log.add(file, jsonPath: "joints[\(index)]", "is \(PoseJSON.typeName(element)): expected a joint name")
                        continue
                    }
                    if let earlier = seen[name] {
                        log.add(file, jsonPath: "joints[\(index)]", "repeats joint '\(name)' (also joints[\(earlier)]): expected each joint once")
                    }
                    seen[name] = index
                    jointNames.append(name)
                }
                if array.isEmpty { log.add(file, jsonPath: "joints", "is empty: expected the joint names, e.g. [\"nose\", \"neck\", …]") }
            } else {
                log.add(file, jsonPath: "joints", "is \(PoseJSON.typeName(value)): expected an array of joint names")
            }
        } else {
            log.add(file, jsonPath: "joints", "is missing: expected an array of joint names, e.g. [\"nose\", \"neck\", …]")
        }
        let identified = log.count == before ? JointSet.identify(jointNames) : nil

        // Frames.
        guard let framesValue = object["frames"] else {
            log.add(file, jsonPath: "frames", "is missing: expected an array of frames {\"time\": seconds, \"keypoints\": [[x, y, c], …]}")
            return nil
        }
        guard let frameValues = framesValue as? [Any] else {
            log.add(file, jsonPath: "frames", "is \(PoseJSON.typeName(framesValue)): expected an array of frames")
            return nil
        }
        if frameValues.isEmpty {
            log.add(file, jsonPath: "frames", "is empty: expected at least one frame")
            return nil
        }
        let flipY = options.keypointOrigin == .bottomLeft
        var arity: (count: Int, path: String)? = nil
        var frames: [PoseFrame] = []
        frames.reserveCapacity(frameValues.count)
        var previousTime: Double? = nil
        for (index, frameValue) in frameValues.enumerated() {
            let path = "frames[\(index)]"
            guard let frame = frameValue as? [String: Any] else {
                log.add(file, jsonPath: path, "is \(PoseJSON.typeName(frameValue)): expected an object with \"time\" and \"keypoints\"")
                continue
            }
            var time = Double(index) / frameRate
            if let value = frame["time"], !(value is NSNull) {
                if let seconds = PoseJSON.number(value) {
                    time = seconds
                    if !(abs(seconds) <= PoseLimits.timeMagnitude) {
                        log.add(file, jsonPath: path + ".time", "\(seconds) is beyond ±\(Int(PoseLimits.timeMagnitude)) s: expected a time in seconds from the clip's start")
                    }
                    if let previousTime, seconds <= previousTime {
                        log.add(file, jsonPath: path + ".time", "\(seconds) is not after the previous frame's \(previousTime): expected frames in increasing time")
                    }
                } else {
                    log.add(file, jsonPath: path + ".time", "is \(PoseJSON.typeName(value)): expected a time in seconds")
                }
            }
            previousTime = time
            guard let keypointsValue = frame["keypoints"] else {
                log.add(file, jsonPath: path + ".keypoints", "is missing: expected one [x, y, confidence] or null per joint")
                continue
            }
            guard let keypointValues = keypointsValue as? [Any] else {
                log.add(file, jsonPath: path + ".keypoints", "is \(PoseJSON.typeName(keypointsValue)): expected an array with one [x, y, confidence] or null per joint")
                continue
            }
            if !jointNames.isEmpty, keypointValues.count != jointNames.count {
                log.add(file, jsonPath: path + ".keypoints", "has \(keypointValues.count) entries: expected \(jointNames.count), one per joint")
                continue
            }
            var keypoints = [Keypoint?](repeating: nil, count: keypointValues.count)
            for (k, value) in keypointValues.enumerated() {
                let keypointPath = "\(path).keypoints[\(k)]"
                if value is NSNull { continue }
                guard let channels = value as? [Any], channels.count == 3 || channels.count == 4 else {
                    log.add(file, jsonPath: keypointPath, "is \(PoseJSON.typeName(value))\((value as? [Any]).map { " of \($0.count) values" } ?? ""): expected [x, y, confidence], [x, y, z, confidence] or null")
                    continue
                }
                if let arity, arity.count != channels.count {
                    log.add(file, jsonPath: keypointPath, "has \(channels.count) values but \(arity.path) has \(arity.count): expected every keypoint with the same channels")
                } else if arity == nil {
                    arity = (channels.count, keypointPath)
                }
                var numbers: [Double] = []
                for (c, channel) in channels.enumerated() {
                    if let number = PoseJSON.number(channel), number.isFinite, abs(number) <= PoseLimits.numberMagnitude {
                        numbers.append(number)
                    } else {
                        log.add(file, jsonPath: "\(keypointPath)[\(c)]", "is \(PoseJSON.typeName(channel)): expected a finite number within ±\(PoseLimits.numberMagnitude)")
                    }
                }
                guard numbers.count == channels.count else { continue }
                let confidence = numbers[numbers.count - 1]
                if confidence < 0 || confidence > 1 {
                    log.add(file, jsonPath: "\(keypointPath)[\(channels.count - 1)]", "confidence \(confidence) is outside 0…1: expected a confidence between 0 and 1")
                    continue
                }
                if confidence == 0 { continue }
                let y = numbers[1]
                keypoints[k] = Keypoint(x: Float(numbers[0]), y: Float(flipY ? 1 - y : y),
                                        z: channels.count == 4 ? Float(numbers[2]) : nil, confidence: Float(confidence))
            }
            frames.append(PoseFrame(time: time, keypoints: keypoints))
        }
        guard log.count == before, let (jointSet, sourceIndices) = identified else { return nil }
        if sourceIndices.enumerated().contains(where: { $0.offset != $0.element }) {
            frames = frames.map { frame in PoseFrame(time: frame.time, keypoints: sourceIndices.map { $0.flatMap { frame.keypoints[$0] } }) }
        }
        let timed = frameValues.contains { ($0 as? [String: Any])?["time"].map { !($0 is NSNull) } ?? false }
        return PoseSequence(jointSet: jointSet, frames: frames, source: PoseSource(file: file), chirality: chirality,
                            hasDepth: arity?.count == 4, nominalFrameRate: declaredRate ?? (timed ? nil : frameRate))
    }
}
