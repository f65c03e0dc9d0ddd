import Foundation

extension PoseSequence {
    /// Formats `value` with `decimals` decimals (no locale).
    private static func text(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

    /// The clip as one-clip-per-file CSV (FORMATS.md §3.2): `time`, a `chirality` column when the
    /// clip has one, then `<joint>_x,<joint>_y[,<joint>_z],<joint>_confidence` per joint, coordinates
    /// normalised with the origin top-left; an undetected joint is empty cells.
    public func csvText() -> String {
        var lines: [String] = []
        var header = ["time"]
        let hasChirality = chirality != nil && chirality != .unknown
        if hasChirality { header.append("chirality") }
        for name in jointSet.names {
            header += ["\(name)_x", "\(name)_y"] + (hasDepth ? ["\(name)_z"] : []) + ["\(name)_confidence"]
        }
        lines.append(header.joined(separator: ","))
        let emptyCells = [String](repeating: "", count: hasDepth ? 4 : 3)
        for frame in frames {
            var cells = [PoseSequence.text(frame.time, 4)]
            if hasChirality { cells.append(chirality!.rawValue) }
            for keypoint in frame.keypoints {
                guard let keypoint else { cells += emptyCells; continue }
                cells += [PoseSequence.text(Double(keypoint.x), 5), PoseSequence.text(Double(keypoint.y), 5)]
                if hasDepth { cells.append(PoseSequence.text(Double(keypoint.z ?? 0), 5)) }
                cells.append(PoseSequence.text(Double(keypoint.confidence), 4))
            }
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The clip as one-clip-per-file JSON (FORMATS.md §3.3): `frameRate`, `joints`, `chirality` when
    /// known, and `frames` of `{"time", "keypoints": [[x, y, confidence] or null, …]}`.
    public func jsonText() -> String {
        var parts = ["{\"frameRate\": \(PoseSequence.text(nominalFrameRate ?? 30, 3))",
                     "\"joints\": [" + jointSet.names.map { "\"\($0)\"" }.joined(separator: ", ") + "]"]
        if let chirality, chirality != .unknown { parts.append("\"chirality\": \"\(chirality.rawValue)\"") }
        let frameTexts = frames.map { frame -> String in
            let points = frame.keypoints.map { keypoint -> String in
                guard let keypoint else { return "null" }
                var values = [PoseSequence.text(Double(keypoint.x), 5), PoseSequence.text(Double(keypoint.y), 5)]
                if hasDepth { values.append(PoseSequence.text(Double(keypoint.z ?? 0), 5)) }
                values.append(PoseSequence.text(Double(keypoint.confidence), 4))
                return "[" + values.joined(separator: ", ") + "]"
            }
            return "  {\"time\": \(PoseSequence.text(frame.time, 4)), \"keypoints\": [" + points.joined(separator: ", ") + "]}"
        }
        parts.append("\"frames\": [\n" + frameTexts.joined(separator: ",\n") + "\n ]")
        return parts.joined(separator: ",\n ") + "\n}\n"
    }
}
