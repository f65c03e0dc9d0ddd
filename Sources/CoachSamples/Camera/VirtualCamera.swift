import Foundation
import CoachRandom

/// A pinhole camera (a phone's main, telephoto or wide lens without distortion) looking at the
/// scene: its position, orientation and intrinsics in pixels. Image coordinates are normalised
/// to 0…1 with the origin at the top-left, as pose files store them (FORMATS.md §3.2).
public struct VirtualCamera: Equatable, Sendable {
    /// Where the camera is (world metres, y up).
    public var position: SIMD3<Float>
    /// Unit vector to the image's right.
    public var right: SIMD3<Float>
    /// Unit vector to the image's bottom.
    public var down: SIMD3<Float>
    /// Unit vector the camera looks along.
    public var forward: SIMD3<Float>
    /// Focal length in pixels.
    public var focalLength: Float
    /// Image width in pixels.
    public var width: Float
    /// Image height in pixels.
    public var height: Float

    /// A camera at `position` looking at `target`, upright unless `roll` radians turn the image
    /// axes about the view direction (a tilted phone).
    public init(position: SIMD3<Float>, lookingAt target: SIMD3<Float>, focalLength: Float, width: Float, height: Float,
                roll: Float = 0) {
        self.position = position
        forward = normalized3(target - position)
        var right = normalized3(cross3(forward, SIMD3(0, 1, 0)), fallback: SIMD3(1, 0, 0))
        var down = cross3(forward, right)
        if roll != 0 {
            let c = cosf(roll), s = sinf(roll)
            (right, down) = (right * c + down * s, down * c - right * s)
        }
        self.right = right
        self.down = down
        self.focalLength = focalLength
        self.width = width
        self.height = height
    }

    /// The point's image position (normalised, origin top-left) and its depth along the view
    /// direction (m); `nil` when the point is behind the camera.
    public func project(_ point: SIMD3<Float>) -> (position: SIMD2<Float>, depth: Float)? {
        let offset = point - position
        let depth = dot3(offset, forward)
        guard depth > 0.05 else { return nil }
        let u = focalLength * dot3(offset, right) / depth + width / 2
        let v = focalLength * dot3(offset, down) / depth + height / 2
        return (SIMD2(u / width, v / height), depth)
    }

    /// The camera turned by small angles (radians) about its own axes: `pan` about the image's
    /// vertical, `tilt` about its horizontal, `roll` about the view direction — hand-held shake.
    public func shaken(pan: Float, tilt: Float, roll: Float) -> VirtualCamera {
        var camera = self
        let f = forward + right * pan - down * tilt
        camera.forward = normalized3(f)
        camera.right = normalized3(right - forward * pan + down * roll)
        camera.right = normalized3(camera.right - camera.forward * dot3(camera.right, camera.forward))
        camera.down = cross3(camera.forward, camera.right)
        return camera
    }
}
