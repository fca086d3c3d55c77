// The local S3 server's (s3rver) credentials in this process's environment, where the AWS SDK
// reads them, for one test file: set in beforeAll, put back as they were in afterAll.

export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

/** Sets s3rver's credentials; returns what puts the environment back as it was. */
export function useS3rverCredentials(): () => void {
  const saved = Object.fromEntries(Object.keys(S3RVER_CREDENTIALS).map((k) => [k, process.env[k]]));
  Object.assign(process.env, S3RVER_CREDENTIALS);
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
