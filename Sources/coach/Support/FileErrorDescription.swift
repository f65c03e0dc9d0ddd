import Foundation

/// Foundation's file errors in words: on Linux a `CocoaError` prints as
/// "Error Domain=NSCocoaErrorDomain Code=516 …", which names neither the file nor the problem.
enum FileErrorDescription {
    /// `error`, with a `CocoaError` replaced by a message naming its file and what went wrong.
    static func readable(_ error: Error) -> Error {
        guard let cocoa = error as? CocoaError else { return error }
        let path = (cocoa.userInfo[NSFilePathErrorKey] as? String) ?? cocoa.url?.path
        let file = path.map { "'\($0)'" } ?? "a file"
        var cause = ""
        if let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            cause = ": " + String(cString: strerror(Int32(underlying.code)))
        }
        let message: String
        switch cocoa.code {
        case .fileWriteFileExists: message = "\(file) already exists\(cause): choose another path"
        case .fileNoSuchFile, .fileReadNoSuchFile: message = "\(file) does not exist, or its folder does not\(cause)"
        case .fileWriteNoPermission, .fileReadNoPermission: message = "no permission to use \(file)\(cause)"
        case .fileWriteOutOfSpace: message = "no space left to write \(file)\(cause)"
        case .fileWriteInvalidFileName, .fileReadInvalidFileName: message = "\(file) is not a usable file name\(cause)"
        case .fileWriteVolumeReadOnly: message = "\(file) is on a read-only disk\(cause)"
        default:
            message = "could not \(cocoa.code.rawValue >= 512 && cocoa.code.rawValue < 1024 ? "write" : "read") \(file)\(cause.isEmpty ? " (file error \(cocoa.code.rawValue))" : cause)"
        }
        return CLIError(message)
    }
}
