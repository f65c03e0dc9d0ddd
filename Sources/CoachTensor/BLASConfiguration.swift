import CBLAS
import Foundation

/// Which OpenBLAS kernels run, and the fallback for CPUs OpenBLAS does not know.
///
/// Debian's OpenBLAS 0.3.21 picks its kernels by CPU model when it loads. CPUs newer than it
/// get older kernels: AMD Zen 4/5, which implement AVX-512, get the AVX2 "Haswell" kernels
/// (about half as fast), and Intel's 5th-generation Xeon (family 6, model 207) gets the SSE3
/// "Prescott" kernels (3–5× slower for `sgemm`). Before Coach's first BLAS call
/// (`ComputeThreads.prepareBLAS`) the kernels are chosen again by what the CPU can do, as
/// `OPENBLAS_CORETYPE` would have chosen them at load time. A process that sets
/// `OPENBLAS_CORETYPE` itself keeps its choice; `COACH_KEEP_BLAS_KERNELS=1` keeps OpenBLAS's own.
public enum BLASConfiguration {
    /// The kernel family OpenBLAS runs (e.g. `Haswell`, `SkylakeX`).
    public static var coreName: String {
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
    }

    /// The CPU's feature flags, from `/proc/cpuinfo`.
    private static let cpuFlags: Set<String> = {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flagsLine = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return [] }
        return Set(flagsLine.split(separator: " ").map(String.init))
    }()

    /// True when this CPU has the AVX-512 subsets OpenBLAS's SkylakeX kernels use.
    public static var cpuHasAVX512: Bool {
        ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(cpuFlags.contains)
    }

    /// True when this CPU has what OpenBLAS's Haswell kernels use.
    public static var cpuHasAVX2: Bool { ["avx2", "fma"].allSatisfy(cpuFlags.contains) }

    /// OpenBLAS kernel families that use neither AVX2 nor AVX-512.
    static let preAVX2Cores: Set<String> = [
        "prescott", "core2", "penryn", "dunnington", "nehalem", "sandybridge", "atom", "nano",
        "katmai", "coppermine", "northwood", "banias", "athlon", "opteron", "opteron(sse3)",
        "barcelona", "bobcat", "bulldozer", "piledriver", "steamroller", "unknown",
    ]

    /// The kernel family to run instead of `chosen` on a CPU with these capabilities, if any:
    /// SkylakeX with AVX-512 in place of an AVX2 or older family, Haswell with AVX2 in place of
    /// a family older than AVX2.
    public static func fasterCoreType(than chosen: String, avx512: Bool, avx2: Bool) -> String? {
        let chosen = chosen.lowercased()
        if avx512, chosen == "haswell" || chosen == "zen" || preAVX2Cores.contains(chosen) { return "SkylakeX" }
        if avx2, preAVX2Cores.contains(chosen) { return "Haswell" }
        return nil
    }

    /// The `OPENBLAS_CORETYPE` that would give faster kernels than the ones running, if any.
    public static var fasterCoreType: String? {
        if ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] != nil { return nil }
        return fasterCoreType(than: coreName, avx512: cpuHasAVX512, avx2: cpuHasAVX2)
    }

    /// The kernels OpenBLAS picked when it loaded, and the family Coach switched it to.
    public struct KernelChoice: Sendable {
        /// OpenBLAS's own choice (or the one `OPENBLAS_CORETYPE` asked for at load time).
        public let loaded: String
        /// The family Coach asked for instead; nil when it kept `loaded`.
        public let requested: String?
    }

    /// Switches OpenBLAS to `fasterCoreType` through its own start-up selection
    /// (`gotoblas_dynamic_quit`/`gotoblas_dynamic_init`, which read `OPENBLAS_CORETYPE`), once,
    /// before Coach's first BLAS call (`ComputeThreads.prepareBLAS` reads this). Nothing changes
    /// with an OpenBLAS built for one CPU (no dynamic selection) or with `COACH_KEEP_BLAS_KERNELS`.
    public static let kernelChoice: KernelChoice = {
        let loaded = coreName
        guard ProcessInfo.processInfo.environment["COACH_KEEP_BLAS_KERNELS"] == nil, let core = fasterCoreType,
              let quit = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gotoblas_dynamic_quit"),
              let initialize = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gotoblas_dynamic_init")
        else { return KernelChoice(loaded: loaded, requested: nil) }
        typealias Entry = @convention(c) () -> Void
        setenv("OPENBLAS_CORETYPE", core, 1)
        unsafeBitCast(quit, to: Entry.self)()
        unsafeBitCast(initialize, to: Entry.self)()
        // Child processes (the bench's Python peers with their own OpenBLAS) choose for themselves.
        unsetenv("OPENBLAS_CORETYPE")
        return KernelChoice(loaded: loaded, requested: core)
    }()
}
