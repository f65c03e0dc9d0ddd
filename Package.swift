// swift-tools-version:6.0
// Coach: train, evaluate and run the vision models behind sports- and fitness-coaching
// apps on Linux. Target boundaries follow ../shared/design/ARCHITECTURE.md.
import Foundation
import PackageDescription

/// The vector level the Swift code is compiled for: baseline x86-64 by default, so a binary runs on
/// any x86-64 CPU. The hot inference loops are C in `CKernels`, compiled for AVX-512F, AVX2+FMA
/// and portable C and picked at run time by CPU features (issue 13); OpenBLAS picks its own
/// kernels at run time too. `COACH_CPU=haswell swift build` compiles the Swift code for AVX2+FMA
/// CPUs instead (measured 2026-11-24: the backbone and the pose models within noise, the action
/// runtime about 6 % faster; such binaries need such a CPU). The choice never changes results:
/// Swift does not contract a·b + c into FMA, so every operation rounds the same.
let cpuFlags: [String] = {
    #if arch(x86_64)
    guard ProcessInfo.processInfo.environment["COACH_CPU"] == "haswell" else { return [] }
    return ["-target-cpu", "haswell"]
    #else
    return []
    #endif
}()

/// Settings for targets with hot numeric loops.
let numericSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"] + cpuFlags),
]

/// Most test targets are compiled without optimisation: their code only calls Coach and checks what
/// comes back, and the optimiser spent about two minutes of every clean `make test` on them (125 s
/// against 56 s here). The code under test keeps the configuration's optimisation; the tensor, model
/// and runtime tests keep it too: their double-precision reference loops and rendered test videos
/// are work of their own (unoptimised, the runtime's trajectory tests took 80 s longer).
let testSettings: [SwiftSetting] = [.unsafeFlags(["-Onone"])]

let package = Package(
    name: "Coach",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "coach", targets: ["coach"]),
        .library(name: "CoachRuntime", targets: ["CoachRuntime"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries (Debian: libopenblas-dev, libhdf5-dev, libjpeg62-turbo-dev,
        // libpng-dev, libexif-dev, libssl-dev; `make deps` installs them).
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas",
                       providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CHDF5", pkgConfig: "hdf5",
                       providers: [.apt(["libhdf5-dev"])]),
        // A small C target, not a bare system library: libjpeg and libpng report errors by
        // exit()/longjmp, which Swift cannot catch, so the wrappers there return codes.
        .target(name: "CImageCodecs",
                linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"),
                                 .linkedLibrary("exif")]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // Open MPI (Debian: libopenmpi-dev, openmpi-bin): ranks and collectives for jobs over many
        // processes and machines (issue 18), behind `Communicator` in CoachTraining.
        .systemLibrary(name: "CMPI", pkgConfig: "ompi-c", providers: [.apt(["libopenmpi-dev"])]),
        // FFmpeg (Debian: libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev): a C
        // shim because the API leans on macros (AVERROR, AV_NOPTS_VALUE) and side data.
        .target(name: "CVideo",
                linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"),
                                 .linkedLibrary("swscale"), .linkedLibrary("avutil")]),

        // FFmpeg's libavutil av_tx FFT (Debian: libavutil-dev) behind a plan that owns aligned
        // buffers: phase correlation for the game's scene stability.
        .target(name: "CFourier", linkerSettings: [.linkedLibrary("avutil")]),

        // The seeded generator every random choice flows from (no dependencies, so data
        // augmentation and tensor initialisation share it).
        .target(name: "CoachRandom"),
        // Inference kernels in C with prepacked weights, picked at run time by CPU features
        // (AVX-512F, AVX2+FMA or portable C) through per-function target attributes, so one
        // binary runs on any x86-64 (issues 13 and 16).
        .target(name: "CKernels"),
        .target(name: "CoachTensor", dependencies: ["CBLAS", "CoachRandom", "CKernels"],
                swiftSettings: numericSettings),
        .target(name: "CoachNN", dependencies: ["CoachTensor"],
                swiftSettings: numericSettings),
        .target(name: "CoachData", dependencies: ["CImageCodecs", "CVideo", "CoachRandom"],
                swiftSettings: numericSettings),
        .target(name: "CoachSamples", dependencies: ["CoachData", "CoachRandom"],
                swiftSettings: numericSettings),
        // Classic vision kernels for the game (issue 12): registration, thresholds, contours,
        // polygons, circles, blobs, motion masks, parabolas. Plain Swift on plain images.
        .target(name: "CoachVision", dependencies: ["CoachData", "CFourier"],
                swiftSettings: numericSettings),
        .target(name: "CoachModels",
                dependencies: ["CoachNN", "CoachData", "CHDF5", "COpenSSL"],
                swiftSettings: numericSettings),
        .target(name: "CoachTraining", dependencies: ["CoachModels", "CMPI"],
                swiftSettings: numericSettings),
        .target(name: "CoachRuntime", dependencies: ["CoachModels", "CoachVision"],
                swiftSettings: numericSettings),
        // Exporters to other formats (issue 15): ONNX today, through a small protobuf encoder.
        // Only the CLI links it; the runtime never needs it.
        .target(name: "CoachExport", dependencies: ["CoachModels"]),
        .executableTarget(name: "coach",
                          dependencies: [
                              "CoachTraining", "CoachRuntime", "CoachSamples", "CoachExport",
                              .product(name: "ArgumentParser", package: "swift-argument-parser"),
                          ]),
        .executableTarget(name: "coach-bench",
                          dependencies: ["CoachTraining", "CoachRuntime", "CoachSamples", "CBLAS",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          exclude: ["Peers"],
                          swiftSettings: numericSettings),

        // Fuzzing (issue 14, `make fuzz`): the parsers as targets, and a driver that replays
        // inputs, or runs libFuzzer when built with -sanitize=fuzzer and -DCOACH_FUZZ.
        .target(name: "CoachFuzzing", dependencies: ["CoachData", "CoachModels"]),
        .executableTarget(name: "coach-fuzz", dependencies: ["CoachFuzzing"]),

        .target(name: "TestSupport", dependencies: ["CoachNN", "CoachModels"], path: "Tests/TestSupport"),
        .testTarget(name: "CoachTensorTests", dependencies: ["CoachTensor", "TestSupport", "CBLAS", "CKernels"]),
        .testTarget(name: "CoachNNTests", dependencies: ["CoachNN", "TestSupport"], swiftSettings: testSettings),
        .testTarget(name: "CoachDataTests", dependencies: ["CoachData", "CoachRandom", "TestSupport"], swiftSettings: testSettings),
        .testTarget(name: "CoachSamplesTests", dependencies: ["CoachSamples", "TestSupport"], swiftSettings: testSettings),
        .testTarget(name: "CoachModelsTests", dependencies: ["CoachModels", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "CoachTrainingTests", dependencies: ["CoachTraining", "CoachSamples", "TestSupport"], swiftSettings: testSettings),
        .testTarget(name: "CoachVisionTests", dependencies: ["CoachVision", "CoachRandom", "TestSupport"], swiftSettings: testSettings),
        .testTarget(name: "CoachRuntimeTests", dependencies: ["CoachRuntime", "TestSupport", "CoachTraining", "CoachSamples", "CoachVision", "CoachRandom"]),
        .testTarget(name: "CoachExportTests", dependencies: ["CoachExport", "CoachRuntime", "CoachTraining", "CoachSamples",
                                                             "CoachRandom", "TestSupport"],
                    exclude: ["CoreML"], swiftSettings: testSettings),
        .testTarget(name: "CoachFuzzingTests", dependencies: ["CoachFuzzing", "TestSupport"], exclude: ["Corpus"], swiftSettings: testSettings),
        .testTarget(name: "coachTests", dependencies: ["TestSupport", "CoachModels", "CoachData", "CoachRandom"], exclude: ["Snapshots"], swiftSettings: testSettings),
    ],
    swiftLanguageModes: [.v5]
)
