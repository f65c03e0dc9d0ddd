import CBLAS
import Foundation

/// Which OpenBLAS kernels run, and the AVX-512 fallback for CPUs OpenBLAS does not know.
///
/// Debian's OpenBLAS 0.3.21 picks its kernels by CPU model at load time. CPUs newer than
/// it (e.g. AMD Zen 4/5, which implement AVX-512) fall back to the AVX2 "Haswell"
/// kernels, about half as fast. OpenBLAS honours `OPENBLAS_CORETYPE`, read once when the
/// library loads, so a process must set it before it starts: the `coach` executables
/// re-launch themselves with it when that pays off (see `relaunchIfFasterKernelsAvailable`).
public enum BLASConfiguration {
    /// The kernel family OpenBLAS chose (e.g. `Haswell`, `SkylakeX`).
    public static var coreName: String {
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
    }

    /// True when this CPU has the AVX-512 subsets OpenBLAS's SkylakeX kernels use.
    public static var cpuHasAVX512: Bool {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flagsLine = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return false }
        let flags = Set(flagsLine.split(separator: " ").map(String.init))
        return ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(flags.contains)
    }

    /// The `OPENBLAS_CORETYPE` that would give faster kernels than the ones chosen, if any.
    public static var fasterCoreType: String? {
        if ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] != nil { return nil }
        let chosen = coreName.lowercased()
        guard ["haswell", "zen", "sandybridge"].contains(chosen), cpuHasAVX512 else { return nil }
        return "SkylakeX"
    }

    /// Re-executes the current program with `OPENBLAS_CORETYPE` set when that selects
    /// faster kernels; returns normally otherwise (or if the re-launch fails).
    ///
    /// Call first thing in `main`, before any work. Set `COACH_NO_BLAS_RELAUNCH=1` to opt out.
    public static func relaunchIfFasterKernelsAvailable() {
        let env = ProcessInfo.processInfo.environment
        guard env["COACH_NO_BLAS_RELAUNCH"] == nil, let core = fasterCoreType else { return }
        setenv("OPENBLAS_CORETYPE", core, 1)
        let arguments = CommandLine.arguments
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv("/proc/self/exe", &argv)
        // execv only returns on failure: carry on with the kernels we have.
        unsetenv("OPENBLAS_CORETYPE")
    }
}
