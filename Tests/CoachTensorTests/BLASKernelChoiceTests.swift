import CoachTensor
import Foundation
import XCTest

/// OpenBLAS's kernels follow what the CPU can do, not whether OpenBLAS knows the CPU's model
/// (Debian's 0.3.21 runs its SSE3 "Prescott" kernels on Intel's family 6 model 207, which has
/// AVX-512, and its AVX2 kernels on AMD's AVX-512 Zen 4).
final class BLASKernelChoiceTests: XCTestCase {
    func testOnlyOlderKernelsAreReplaced() {
        let rule = BLASConfiguration.fasterCoreType(than:avx512:avx2:)
        XCTAssertEqual(rule("Prescott", true, true), "SkylakeX")
        XCTAssertEqual(rule("Haswell", true, true), "SkylakeX")
        XCTAssertEqual(rule("Zen", true, true), "SkylakeX")
        XCTAssertEqual(rule("Sandybridge", true, true), "SkylakeX")
        XCTAssertEqual(rule("Prescott", false, true), "Haswell")
        XCTAssertEqual(rule("Nehalem", false, true), "Haswell")
        XCTAssertNil(rule("Haswell", false, true))
        XCTAssertNil(rule("Zen", false, true))
        XCTAssertNil(rule("SkylakeX", true, true))
        XCTAssertNil(rule("Cooperlake", true, true))
        XCTAssertNil(rule("SapphireRapids", true, true))
        XCTAssertNil(rule("Prescott", false, false))
    }

    func testTheKernelsRunningAreTheBestThisCPUSupports() throws {
        ComputeThreads.prepareBLAS()
        let choice = BLASConfiguration.kernelChoice
        let cpu = (avx512: BLASConfiguration.cpuHasAVX512, avx2: BLASConfiguration.cpuHasAVX2)
        if let requested = choice.requested {
            XCTAssertEqual(BLASConfiguration.coreName.lowercased(), requested.lowercased(),
                           "OpenBLAS loaded \(choice.loaded) and did not switch to \(requested)")
        } else if ProcessInfo.processInfo.environment["COACH_KEEP_BLAS_KERNELS"] != nil
                    || ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] != nil {
            throw XCTSkip("the environment chose OpenBLAS's kernels (\(choice.loaded))")
        }
        XCTAssertNil(BLASConfiguration.fasterCoreType(than: BLASConfiguration.coreName, avx512: cpu.avx512, avx2: cpu.avx2),
                     "\(BLASConfiguration.coreName) kernels run on a CPU with AVX-512 \(cpu.avx512), AVX2 \(cpu.avx2)")

        // The switched kernels compute: a product against sums in Double.
        let (m, k, n) = (67, 300, 45)
        let a = Tensor(shape: [m, k], scalars: (0..<m * k).map { Float(($0 * 37) % 101) / 50 - 1 })
        let b = Tensor(shape: [k, n], scalars: (0..<k * n).map { Float(($0 * 53) % 97) / 48 - 1 })
        let c = Tensor.matmul(a, b)
        for i in 0..<m {
            for j in 0..<n {
                var sum = 0.0
                for p in 0..<k { sum += Double(a.scalars[i * k + p]) * Double(b.scalars[p * n + j]) }
                XCTAssertEqual(Double(c.scalars[i * n + j]), sum, accuracy: 1e-3, "[\(i), \(j)]")
            }
        }
    }
}
