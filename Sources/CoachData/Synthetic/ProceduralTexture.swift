import Foundation

/// Seeded value noise for the synthetic scenes' textures: a hashed lattice of values in
/// 0…1, smoothly interpolated; `fractal` sums octaves.
struct ProceduralTexture: Sendable {
    let seed: UInt64

    @inline(__always) func lattice(_ x: Int, _ y: Int) -> Double {
        var h = seed ^ (UInt64(bitPattern: Int64(x)) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(bitPattern: Int64(y)) &* 0xC2B2_AE3D_27D4_EB4F)
        h = (h ^ (h >> 31)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 29)) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 32
        return Double(h >> 11) * 0x1p-53
    }

    /// Smooth noise in 0…1 at `(x, y)` (lattice spacing 1).
    @inline(__always) func noise(_ x: Double, _ y: Double) -> Double {
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let ix = Int(fx), iy = Int(fy)
        var tx = x - fx, ty = y - fy
        tx = tx * tx * (3 - 2 * tx)
        ty = ty * ty * (3 - 2 * ty)
        let a = lattice(ix, iy), b = lattice(ix + 1, iy), c = lattice(ix, iy + 1), d = lattice(ix + 1, iy + 1)
        return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty
    }

    /// Three octaves of noise, in 0…1.
    @inline(__always) func fractal(_ x: Double, _ y: Double) -> Double {
        (noise(x, y) * 0.57 + noise(2.03 * x + 17.1, 2.03 * y - 3.7) * 0.29 + noise(4.11 * x - 8.3, 4.11 * y + 11.9) * 0.14)
    }

    /// A hashed value in 0…1 for an integer cell (plank or tile colours).
    @inline(__always) func cell(_ i: Int, _ j: Int = 0) -> Double { lattice(i &* 7919, j &+ 104_729) }
}
