import CoachTraining

/// The processes of this run: one, or the ranks of an MPI job (`mpirun -np N coach …`).
enum Job {
    /// Starts the job's communicator; ranks other than 0 then print only their own errors.
    static func start() throws -> Communicator {
        let job = try Communicator.world()
        if !job.isRoot { Console.followerName = job.name }
        return job
    }
}
