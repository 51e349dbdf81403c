export { checkRekey, decidePut, rekeyStep, type RekeyStep, type Refusal } from './secrets.decide.js';
export {
  deleteSecret,
  putSecret,
  rekeySecrets,
  startSecretsHost,
  type SecretsHostOptions,
} from './secrets.host.js';
