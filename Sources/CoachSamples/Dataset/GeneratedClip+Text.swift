import CoachData

extension GeneratedClip {
    /// The clip as a one-clip-per-file CSV (FORMATS.md §3.2): a `time` column, then
    /// `<joint>_x,<joint>_y,<joint>_confidence` per joint; coordinates normalised 0…1 with
    /// the origin top-left, 4 decimals. A missed joint is three empty cells, or zeros with
    /// confidence 0, as the plan says.
    public func csvText() -> [UInt8] {
        var text = SyntheticTextBuffer(reservingCapacity: 64 + frames.count * jointNames.count * 22)
        text.append("time")
        for name in jointNames {
            text.append(",\(name)_x,\(name)_y,\(name)_confidence")
        }
        text.append(byte: 10)
        let emptyCells = writesMissingJointsAsEmptyCells
        for frame in frames {
            text.append(frame.time, decimals: 4)
            for keypoint in frame.keypoints {
                if let keypoint {
                    text.append(byte: 44); text.append(keypoint.x, decimals: 4)
                    text.append(byte: 44); text.append(keypoint.y, decimals: 4)
                    text.append(byte: 44); text.append(keypoint.confidence, decimals: 3)
                } else if emptyCells {
                    text.append(",,,")
                } else {
                    text.append(",0.0000,0.0000,0.000")
                }
            }
            text.append(byte: 10)
        }
        return text.bytes
    }

    /// The clip as one-clip-per-file JSON (FORMATS.md §3.3): `frameRate`, `joints`, and
    /// `frames` of `{"time", "keypoints": [[x, y, confidence] or null, …]}`.
    public func jsonText() -> [UInt8] {
        var text = SyntheticTextBuffer(reservingCapacity: 64 + frames.count * jointNames.count * 24)
        text.append("{\"frameRate\": ")
        text.append(frameRate, decimals: 3)
        text.append(", \"joints\": [")
        text.append(jointNames.map { "\"\($0)\"" }.joined(separator: ", "))
        text.append("],\n \"frames\": [\n")
        for (index, frame) in frames.enumerated() {
            text.append("  {\"time\": ")
            text.append(frame.time, decimals: 4)
            text.append(", \"keypoints\": [")
            for (j, keypoint) in frame.keypoints.enumerated() {
                if j > 0 { text.append(", ") }
                if let keypoint {
                    text.append(byte: 91); text.append(keypoint.x, decimals: 4)
                    text.append(", "); text.append(keypoint.y, decimals: 4)
                    text.append(", "); text.append(keypoint.confidence, decimals: 3)
                    text.append(byte: 93)
                } else {
                    text.append("null")
                }
            }
            text.append(index + 1 < frames.count ? "]},\n" : "]}\n")
        }
        text.append(" ]\n}\n")
        return text.bytes
    }

    /// The clip in the format its plan names (JSON or CSV).
    public func fileText() -> [UInt8] {
        writesJSON ? jsonText() : csvText()
    }
}
