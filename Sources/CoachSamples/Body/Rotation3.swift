import Foundation
/// A rotation in 3-D as a 3×3 matrix whose columns are the images of the x, y and z axes —
/// the little linear algebra forward kinematics and cameras need (`simd` matrices are not
/// available on Linux). World axes of the samples: x to the person's left, y up, z forward.
public struct Rotation3: Equatable, Sendable {
    /// Image of the x axis.
    public var x: SIMD3<Float>
    /// Image of the y axis.
    public var y: SIMD3<Float>
    /// Image of the z axis.
    public var z: SIMD3<Float>

    /// A rotation with the given columns.
    public init(x: SIMD3<Float>, y: SIMD3<Float>, z: SIMD3<Float>) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// No rotation.
    public static let identity = Rotation3(x: SIMD3(1, 0, 0), y: SIMD3(0, 1, 0), z: SIMD3(0, 0, 1))

    /// A right-handed rotation by `angle` radians about x (y turns towards z).
    public static func aboutX(_ angle: Float) -> Rotation3 {
        let c = cosf(angle), s = sinf(angle)
        return Rotation3(x: SIMD3(1, 0, 0), y: SIMD3(0, c, s), z: SIMD3(0, -s, c))
    }

    /// A right-handed rotation by `angle` radians about y (z turns towards x).
    public static func aboutY(_ angle: Float) -> Rotation3 {
        let c = cosf(angle), s = sinf(angle)
        return Rotation3(x: SIMD3(c, 0, -s), y: SIMD3(0, 1, 0), z: SIMD3(s, 0, c))
    }

    /// A right-handed rotation by `angle` radians about z (x turns towards y).
    public static func aboutZ(_ angle: Float) -> Rotation3 {
        let c = cosf(angle), s = sinf(angle)
        return Rotation3(x: SIMD3(c, s, 0), y: SIMD3(-s, c, 0), z: SIMD3(0, 0, 1))
    }

    /// `vector` rotated.
    public func apply(_ vector: SIMD3<Float>) -> SIMD3<Float> {
        x * vector.x + y * vector.y + z * vector.z
    }

    /// The inverse rotation (the transpose).
    public var transposed: Rotation3 {
        Rotation3(x: SIMD3(x.x, y.x, z.x), y: SIMD3(x.y, y.y, z.y), z: SIMD3(x.z, y.z, z.z))
    }

    /// The rotation `right` followed by `left`.
    public static func * (left: Rotation3, right: Rotation3) -> Rotation3 {
        Rotation3(x: left.apply(right.x), y: left.apply(right.y), z: left.apply(right.z))
    }
}

/// Degrees to radians.
@inlinable
func radians(_ degrees: Float) -> Float { degrees * .pi / 180 }

/// The dot product of two 3-vectors.
@inlinable
func dot3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }

/// The cross product of two 3-vectors.
@inlinable
func cross3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// The length of a 3-vector.
@inlinable
func length3(_ a: SIMD3<Float>) -> Float { (a * a).sum().squareRoot() }

/// `a` scaled to unit length (`fallback` when it is nearly zero).
@inlinable
func normalized3(_ a: SIMD3<Float>, fallback: SIMD3<Float> = SIMD3(0, 0, 1)) -> SIMD3<Float> {
    let l = length3(a)
    return l > 1e-6 ? a / l : fallback
}
