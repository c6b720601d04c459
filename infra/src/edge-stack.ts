// The us-east-1 stack of a deployment whose MCP stack is elsewhere and puts CloudFront in front
// (OAuth, front door `cloudfront`): Lambda@Edge functions must live in us-east-1. It holds the
// edge function's role; the function itself is put here by EdgeFunction (front-door.ts), which
// also publishes the version ARN in an SSM parameter the MCP stack reads across regions.
import { Stack, type StackProps } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { edgeFunctionRole } from './front-door.ts';

export interface EdgeStackProps extends StackProps {
  readonly stage: string;
}

export class EdgeStack extends Stack {
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, props);
    this.role = edgeFunctionRole(this, props.stage);
  }
}
