import CoachData
import Foundation

extension GameVideo {
    /// The limbs drawn for the stick figure (pairs of body18 joints).
    static let limbs: [(Body18, Body18)] = [
        (.neck, .nose), (.neck, .rightShoulder), (.neck, .leftShoulder), (.rightShoulder, .rightElbow),
        (.rightElbow, .rightWrist), (.leftShoulder, .leftElbow), (.leftElbow, .leftWrist), (.neck, .rightHip),
        (.neck, .leftHip), (.rightHip, .leftHip), (.rightHip, .rightKnee), (.rightKnee, .rightAnkle),
        (.leftHip, .leftKnee), (.leftKnee, .leftAnkle),
    ]

    /// Frame `index` (0 ..< `frameCount`) as the camera saw it.
    public func frame(_ index: Int) -> RGBImage {
        let index = min(max(0, index), frameCount - 1)
        let fps = max(1, configuration.frameRate)
        let time = Double(index) / fps
        var image = background
        if configuration.showsPlayer, index < poses.count {
            let pose = poses[index]
            let thickness = 7 * Double(image.width) / 1280
            let clothes = RGBColor(red: 48, green: 52, blue: 60)
            for (from, to) in GameVideo.limbs {
                let a = pose[from.rawValue], b = pose[to.rawValue]
                image.drawLine(x0: a.x, y0: a.y, x1: b.x, y1: b.y, thickness: thickness, color: clothes)
            }
            let head = pose[Body18.nose.rawValue]
            image.fillDisc(x: head.x, y: head.y, radius: 2.2 * thickness, color: RGBColor(red: 214, green: 176, blue: 146))
        }
        for (throwIndex, truth) in throwTruths.enumerated() {
            let color = truth.isRedBag ? RGBColor(red: 200, green: 35, blue: 35) : RGBColor(red: 35, green: 70, blue: 200)
            if time >= truth.landingTime {
                if truth.landing != .hole {
                    image.fillDisc(x: truth.landingPoint.x, y: truth.landingPoint.y, radius: bagRadius, color: color)
                }
            } else if time >= truth.releaseTime {
                // The shutter is open for the second half of the frame interval: the bag is blurred along its path.
                let samples = (0..<4).map { step -> SIMD2<Double> in
                    let sampleTime = max(truth.releaseTime, time - 0.5 / fps * Double(3 - step) / 3)
                    return bagPosition(throwIndex, at: sampleTime)
                }
                drawBlurredBag(into: &image, at: samples, color: color)
            } else if time >= truth.motionStartTime, configuration.showsPlayer, index < poses.count {
                let hand = poses[index][truth.throwingWrist.rawValue]
                image.fillDisc(x: hand.x, y: hand.y, radius: bagRadius, color: color)
            }
        }
        let shake = shakes[index]
        return shake == SIMD2(0, 0) ? image : GameVideo.shifted(image, by: shake)
    }

    /// Every frame in order.
    public func frames() -> [RGBImage] { (0..<frameCount).map(frame) }

    /// The centre of throw `throwIndex`'s bag in flight at `time` (pixels).
    public func bagPosition(_ throwIndex: Int, at time: Double) -> SIMD2<Double> {
        let truth = throwTruths[throwIndex]
        let duration = truth.landingTime - truth.releaseTime
        let tau = min(max(0, time - truth.releaseTime), duration)
        let gravity = 1100 * Double(configuration.height) / 720
        let velocity = SIMD2((truth.landingPoint.x - truth.releasePoint.x) / duration,
                             (truth.landingPoint.y - truth.releasePoint.y - 0.5 * gravity * duration * duration) / duration)
        return SIMD2(truth.releasePoint.x + velocity.x * tau,
                     truth.releasePoint.y + velocity.y * tau + 0.5 * gravity * tau * tau)
    }

    /// Draws the bag at each of `samples`, each covering its share of the exposure.
    private func drawBlurredBag(into image: inout RGBImage, at samples: [SIMD2<Double>], color: RGBColor) {
        let r = bagRadius
        let minX = Int((samples.map(\.x).min()! - r).rounded(.down)), maxX = Int((samples.map(\.x).max()! + r).rounded(.up))
        let minY = Int((samples.map(\.y).min()! - r).rounded(.down)), maxY = Int((samples.map(\.y).max()! + r).rounded(.up))
        guard minX < image.width, minY < image.height, maxX >= 0, maxY >= 0 else { return }
        for y in max(0, minY)...min(image.height - 1, maxY) {
            for x in max(0, minX)...min(image.width - 1, maxX) {
                var covered = 0
                for sample in samples {
                    let dx = Double(x) + 0.5 - sample.x, dy = Double(y) + 0.5 - sample.y
                    if dx * dx + dy * dy <= r * r { covered += 1 }
                }
                guard covered > 0 else { continue }
                let share = Double(covered) / Double(samples.count)
                let old = image[x, y]
                func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) * (1 - share) + Double(b) * share).rounded()) }
                image[x, y] = RGBColor(red: mix(old.red, color.red), green: mix(old.green, color.green),
                                       blue: mix(old.blue, color.blue))
            }
        }
    }

    /// `image` moved by `shift` pixels (edges repeated), as a shaken camera sees the scene.
    static func shifted(_ image: RGBImage, by shift: SIMD2<Int>) -> RGBImage {
        var result = image
        for y in 0..<image.height {
            let sourceY = min(max(0, y - shift.y), image.height - 1)
            for x in 0..<image.width {
                result[x, y] = image[min(max(0, x - shift.x), image.width - 1), sourceY]
            }
        }
        return result
    }

    /// The still field: a pale wall above, grass below (fixed per-pixel texture), and the board
    /// with its hole (an ellipse of radii `holeRadius` across and down the image).
    static func field(width: Int, height: Int, board: [SIMD2<Double>]?, hole: SIMD2<Double>, holeRadius: SIMD2<Double>,
                      seed: UInt64) -> RGBImage {
        var image = RGBImage(width: width, height: height, color: .black)
        let horizon = Int(Double(height) * 0.42)
        func noise(_ x: Int, _ y: Int, _ channel: Int) -> Double {
            var h = UInt64(truncatingIfNeeded: x) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: y) &* 0xC2B2_AE3D_27D4_EB4F
            h ^= UInt64(channel) &* 0x1656_67B1_9E37_79F9 ^ seed
            h ^= h >> 29; h = h &* 0xBF58_476D_1CE4_E5B9; h ^= h >> 32
            return Double(h % 1000) / 1000 - 0.5
        }
        for y in 0..<height {
            for x in 0..<width {
                let color: RGBColor
                if y < horizon {
                    let shade = 200 + 25 * Double(y) / Double(horizon)
                    color = RGBColor(red: UInt8(shade), green: UInt8(shade + 6), blue: UInt8(min(255, shade + 18)))
                } else {
                    color = RGBColor(red: UInt8(70 + 24 * noise(x, y, 0)), green: UInt8(122 + 30 * noise(x, y, 1)),
                                     blue: UInt8(52 + 18 * noise(x, y, 2)))
                }
                image[x, y] = color
            }
        }
        guard let board else { return image }
        let minY = Int(board.map(\.y).min()!.rounded(.down)), maxY = Int(board.map(\.y).max()!.rounded(.up))
        for y in max(0, minY)...min(height - 1, maxY) {
            let py = Double(y) + 0.5
            // Left and right edges at this row (top-left→bottom-left, top-right→bottom-right).
            let t = (py - board[0].y) / (board[3].y - board[0].y)
            guard t >= 0, t <= 1 else { continue }
            let left = board[0].x + (board[3].x - board[0].x) * t, right = board[1].x + (board[2].x - board[1].x) * t
            for x in max(0, Int(left.rounded()))..<min(width, Int(right.rounded())) {
                let dx = (Double(x) + 0.5 - hole.x) / holeRadius.x, dy = (py - hole.y) / holeRadius.y
                if dx * dx + dy * dy <= 1 {
                    image[x, y] = RGBColor(red: 22, green: 16, blue: 12)
                } else {
                    let grain = 10 * noise(x / 3, y, 3)
                    image[x, y] = RGBColor(red: UInt8(178 + grain), green: UInt8(130 + grain), blue: UInt8(82 + grain / 2))
                }
            }
        }
        return image
    }
}
