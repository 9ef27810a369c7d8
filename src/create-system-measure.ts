/** The performance measure src/system.ts records around creating Chakra's system, which the bench reads. */
export const CREATE_SYSTEM_MEASURE = 'chakra-create-system';
